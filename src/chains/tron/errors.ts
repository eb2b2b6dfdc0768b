/**
 * What the Tron adapter throws besides NodeClient's transport errors. Each is an ApiError with the
 * status the API would answer if a route let it through unmapped; messages carry node text and
 * addresses only, never keys, headers or endpoint URLs.
 */
import { ApiError } from '../../errors.ts';

/** A caller's input cannot be used: malformed address, private key, token id or amount. */
export class TronInputError extends ApiError {
  constructor(message: string) {
    super(422, message);
    this.name = 'TronInputError';
  }
}

/**
 * The node refused to build a transaction or answer a call (`{"Error": "class ... : msg"}` or a
 * TransactionExtention `result.message`). `message` is the node's text without the Java class;
 * `apiMessage` is the short form the API documents (e.g. `balance is not sufficient`).
 */
export class TronNodeError extends ApiError {
  readonly apiMessage: string;
  /** TransactionExtention result code (CONTRACT_VALIDATE_ERROR, OTHER_ERROR, ...) when there was one. */
  readonly code: string | null;

  constructor(message: string, apiMessage: string, code: string | null = null) {
    super(422, message);
    this.name = 'TronNodeError';
    this.apiMessage = apiMessage;
    this.code = code;
  }
}

/** The node answered with something other than what was asked (a different or malformed transaction). */
export class TronInvalidResponseError extends ApiError {
  constructor(message: string) {
    super(502, message);
    this.name = 'TronInvalidResponseError';
  }
}

/**
 * broadcasttransaction refused the transaction. `message` is the node's text decoded from hex, e.g.
 * `Contract validate error : Validate TransferContract error, balance is not sufficient.`;
 * `apiMessage` is the documented short form (`balance is not sufficient`, or the SIGERROR text whole).
 */
export class TronBroadcastError extends ApiError {
  readonly code: string;
  readonly txid: string | null;
  readonly apiMessage: string;

  constructor(code: string, message: string, apiMessage: string, txid: string | null) {
    super(422, message);
    this.name = 'TronBroadcastError';
    this.code = code;
    this.apiMessage = apiMessage;
    this.txid = txid;
  }
}

/**
 * A TRC20 contract does not exist or does not answer name/symbol/decimals/totalSupply/balanceOf, or a
 * TRC10 token id names no asset.
 */
export class TronContractError extends ApiError {
  /** Base58 contract address, or the TRC10 token id. */
  readonly contract: string;

  constructor(contract: string, message: string) {
    super(400, message);
    this.name = 'TronContractError';
    this.contract = contract;
  }
}
