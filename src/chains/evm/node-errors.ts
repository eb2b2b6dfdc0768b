/**
 * Turns the node's JSON-RPC errors into the adapter's typed errors. Nodes differ in wording (geth, BSC,
 * Bor, Nitro, Erigon, Nethermind, anvil), so the patterns below cover each one's text for the same case.
 */
import type { Hex } from 'viem';
import { KNOWN_ERRORS_ABI } from './abi.ts';
import { EvmInsufficientFundsError, EvmNodeError, EvmNonceError, EvmRevertError } from './errors.ts';
import { JsonRpcError } from './rpc.ts';
import { viemUtils } from './viem.ts';

export type RpcErrorKind =
  | 'insufficient_funds'
  | 'revert'
  | 'nonce_too_low'
  | 'nonce_too_high'
  | 'underpriced'
  | 'already_known'
  | 'other';

const PATTERNS: [RpcErrorKind, RegExp][] = [
  ['already_known', /already known|already imported|alreadyknown|already_exists|known transaction/i],
  ['nonce_too_low', /nonce too low|nonce has already been used|oldnonce|nonce_expired|invalid nonce.*lower/i],
  ['nonce_too_high', /nonce too high|noncegap/i],
  ['underpriced', /replacement transaction underpriced|could not replace existing tx|replacementnotallowed/i],
  ['insufficient_funds', /insufficient funds|insufficient balance for transfer/i],
  ['revert', /revert/i],
];

/** What a JSON-RPC error means, from its code and message. */
export function classifyRpcError(error: JsonRpcError): RpcErrorKind {
  // Code 3 is the standard "execution reverted with data" answer.
  if (error.code === 3) return 'revert';
  for (const [kind, pattern] of PATTERNS) if (pattern.test(error.message)) return kind;
  return 'other';
}

/**
 * The typed error for a node's JSON-RPC error; anything else (transport errors, bugs) is returned as is.
 * Messages stay the node's own text, which is what the API documents for these cases. Asynchronous
 * because a revert's data is decoded by viem, loaded the first time one is.
 */
export async function translateNodeError(error: unknown): Promise<unknown> {
  if (!(error instanceof JsonRpcError)) return error;
  const kind = classifyRpcError(error);
  switch (kind) {
    case 'insufficient_funds':
      return new EvmInsufficientFundsError(error.message, error.code);
    case 'revert': {
      const data = revertDataOf(error.data);
      const reason = data === null ? reasonFromMessage(error.message) : await decodeRevertReason(data);
      return new EvmRevertError(reason, data, error.code);
    }
    case 'nonce_too_low':
      return new EvmNonceError('too_low', error.message, error.code);
    case 'nonce_too_high':
      return new EvmNonceError('too_high', error.message, error.code);
    case 'underpriced':
      return new EvmNonceError('underpriced', error.message, error.code);
    default:
      return new EvmNodeError(error.message, error.code);
  }
}

/**
 * Human text for revert data: the Error(string) reason, `panic 0x11 (arithmetic overflow)`, a known
 * custom error as `Name(arg, ...)`, or `custom error 0x<selector>`; null for empty data.
 */
export async function decodeRevertReason(data: Hex): Promise<string | null> {
  if (data === '0x' || data.length < 10) return null;
  const { decodeErrorResult } = await viemUtils();
  try {
    // viem adds Error(string) and Panic(uint256) to the ABI itself; its types do not say so.
    const { errorName, args } = decodeErrorResult({ abi: KNOWN_ERRORS_ABI, data }) as {
      errorName: string;
      args: readonly unknown[] | undefined;
    };
    const list = (args ?? []) as readonly unknown[];
    if (errorName === 'Error') return String(list[0]);
    if (errorName === 'Panic') {
      const code = BigInt(list[0] as bigint);
      return `panic 0x${code.toString(16)} (${PANIC_CODES.get(code) ?? 'unknown panic code'})`;
    }
    return `${errorName}(${list.map((arg) => String(arg)).join(', ')})`;
  } catch {
    return `custom error ${data.slice(0, 10)}`;
  }
}

const PANIC_CODES = new Map<bigint, string>([
  [0x00n, 'generic panic'],
  [0x01n, 'assertion failed'],
  [0x11n, 'arithmetic overflow or underflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'invalid enum value'],
  [0x22n, 'invalid storage byte array'],
  [0x31n, 'pop on empty array'],
  [0x32n, 'array index out of bounds'],
  [0x41n, 'out of memory'],
  [0x51n, 'call to a zero-initialized function'],
]);

/** Revert data where nodes put it: `data` itself, or nested as `data.data` / `data.originalError.data`. */
function revertDataOf(data: unknown, depth = 0): Hex | null {
  if (typeof data === 'string') {
    const match = /0x(?:[0-9a-fA-F]{2})*/.exec(data);
    return match ? (match[0].toLowerCase() as Hex) : null;
  }
  if (depth < 2 && data !== null && typeof data === 'object') {
    const nested = data as { data?: unknown; originalError?: { data?: unknown } };
    return revertDataOf(nested.data, depth + 1) ?? revertDataOf(nested.originalError?.data, depth + 1);
  }
  return null;
}

function reasonFromMessage(message: string): string | null {
  const match = /execution reverted:?\s*(.+)$/is.exec(message);
  return match?.[1]?.trim() || null;
}
