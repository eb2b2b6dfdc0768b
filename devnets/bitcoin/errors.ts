// Bitcoin Core's RPC errors: a code and a message, which both fronts render (Esplora wraps them in its
// "sendrawtransaction RPC error" text).
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const RPC_MISC_ERROR = -1;
export const RPC_TYPE_ERROR = -3;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_DESERIALIZATION_ERROR = -22;
export const RPC_TRANSACTION_ERROR = -25;
export const RPC_TRANSACTION_REJECTED = -26;
export const RPC_TRANSACTION_ALREADY_IN_CHAIN = -27;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;

export const rejected = (reason: string) => new RpcError(RPC_TRANSACTION_REJECTED, reason);

/** Core's FormatMoney: 8 places with trailing zeros trimmed down to one ("0.01", "50.0"). */
export function formatMoney(sats: bigint): string {
  const negative = sats < 0n;
  const abs = negative ? -sats : sats;
  const frac = (abs % 100_000_000n).toString().padStart(8, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / 100_000_000n}.${frac === '' ? '0' : frac}`;
}
