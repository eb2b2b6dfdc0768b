/**
 * What the EVM adapter throws besides NodeClient's transport errors. Each is an ApiError with the status
 * the API would answer if a route let it through unmapped; messages carry node text, addresses and
 * hashes only, never keys, passwords, headers or endpoint URLs.
 */
import { ApiError } from '../../errors.ts';

/** A caller's input cannot be used: malformed address, key, amount, fee or transaction. */
export class EvmInputError extends ApiError {
  constructor(message: string) {
    super(422, message);
    this.name = 'EvmInputError';
  }
}

/** The endpoint serves another chain than the one configured (a wrong URL would sign for the wrong chain). */
export class EvmChainMismatchError extends ApiError {
  readonly expected: number;
  readonly actual: number;

  constructor(chain: string, network: string, expected: number, actual: number) {
    super(502, `${chain} ${network} node reports chain id ${actual}, expected ${expected}`);
    this.name = 'EvmChainMismatchError';
    this.expected = expected;
    this.actual = actual;
  }
}

/** The node answered with something that is not what the JSON-RPC method returns. */
export class EvmInvalidResponseError extends ApiError {
  constructor(message: string) {
    super(502, message);
    this.name = 'EvmInvalidResponseError';
  }
}

/** A contract that is not the ERC20/ERC721 it was used as: no code, or it does not answer the call. */
export class EvmContractError extends ApiError {
  readonly contract: string;

  constructor(contract: string, message: string) {
    super(400, message);
    this.name = 'EvmContractError';
    this.contract = contract;
  }
}

/**
 * A token transfer refused before signing because it cannot work: the contract has no code, the call
 * would revert without a reason (the message then says why: balance, ownership), or returns false.
 */
export class EvmTokenTransferError extends ApiError {
  readonly contract: string;

  constructor(contract: string, message: string) {
    super(422, message);
    this.name = 'EvmTokenTransferError';
    this.contract = contract;
  }
}

/**
 * The node refused a call or a transaction for a reason not covered below. `code` is the JSON-RPC error
 * code; the message is the node's own text.
 */
export class EvmNodeError extends ApiError {
  readonly code: number | null;

  constructor(message: string, code: number | null = null, status = 422) {
    super(status, message);
    this.name = 'EvmNodeError';
    this.code = code;
  }
}

/**
 * The sender cannot pay value + gas. The message is the node's text as is
 * (`insufficient funds for gas * price + value: ...`), which the API documents.
 */
export class EvmInsufficientFundsError extends EvmNodeError {
  constructor(message: string, code: number | null = null) {
    super(message, code);
    this.name = 'EvmInsufficientFundsError';
  }
}

/** The call reverted; `reason` is decoded from the revert data when the contract gave one. */
export class EvmRevertError extends EvmNodeError {
  readonly reason: string | null;
  /** Raw revert data (`0x...`), when the node returned it. */
  readonly data: string | null;

  constructor(reason: string | null, data: string | null, code: number | null = null) {
    super(reason === null ? 'execution reverted' : `execution reverted: ${reason}`, code);
    this.name = 'EvmRevertError';
    this.reason = reason;
    this.data = data;
  }
}

/**
 * The nonce does not fit the account: `too_low` (already used, usually by a send elsewhere: re-sync and
 * retry), `too_high` (a gap), `underpriced` (a pending transaction holds the nonce and this one does not
 * pay enough more to replace it).
 */
export type EvmNonceErrorKind = 'too_low' | 'too_high' | 'underpriced';

export class EvmNonceError extends EvmNodeError {
  readonly kind: EvmNonceErrorKind;
  /** A fresh nonce fixes `too_low` and `underpriced`. */
  readonly retryable: boolean;

  constructor(kind: EvmNonceErrorKind, message: string, code: number | null = null) {
    // 409: the request conflicts with the account's state and may succeed when sent again.
    super(message, code, 409);
    this.name = 'EvmNonceError';
    this.kind = kind;
    this.retryable = kind !== 'too_high';
  }
}

/**
 * The broadcast did not get an answer (every endpoint timed out or failed): the node may or may not
 * have the transaction. Its nonce stays taken and the raw transaction is kept for re-broadcast.
 */
export class EvmBroadcastUnknownError extends ApiError {
  readonly txid: string;

  constructor(txid: string, options?: ErrorOptions) {
    super(502, `broadcast of ${txid} got no answer from the node; it may still be mined`);
    this.name = 'EvmBroadcastUnknownError';
    this.txid = txid;
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}
