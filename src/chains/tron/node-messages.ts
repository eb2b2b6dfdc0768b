/**
 * Translates java-tron's error bodies into adapter errors: builder `{"Error": "class ... : msg"}`,
 * TransactionExtention `result.{code,message}` and broadcast `Return{code, message}`, whose message
 * bytes are hex(utf8) when visible=false.
 */
import { TronBroadcastError, TronNodeError } from './errors.ts';

const HEX_TEXT = /^(?:[0-9a-fA-F]{2})+$/;
const JAVA_CLASS_PREFIX = /^class\s+([\w.$]+)\s*:\s*/;
const CONTRACT_VALIDATE_PREFIX = /^Contract validate error\s*:\s*/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A Return/TransactionExtention message: hex(utf8) with visible=false, plain text otherwise. */
export function decodeNodeText(text: string): string {
  if (!HEX_TEXT.test(text)) return text;
  try {
    const decoded = utf8.decode(Buffer.from(text, 'hex'));
    // Hex that decodes to control bytes was not text: keep it as the node sent it.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control bytes are exactly what is checked
    return /[\u0000-\u0008\u000e-\u001f]/.test(decoded) ? text : decoded;
  } catch {
    return text;
  }
}

/** `class org.tron.core.exception.ContractValidateException : msg` -> `msg`. */
export function stripJavaClass(text: string): string {
  const match = JAVA_CLASS_PREFIX.exec(text);
  if (!match) return text.trim();
  const rest = text.slice(match[0].length).trim();
  // `class java.lang.NullPointerException : null` says nothing after the class; keep its short name.
  if (rest === '' || rest === 'null') return match[1]!.split(/[.$]/).at(-1)!;
  return rest;
}

/** The short message the API documents for a node's validation text. */
export function apiMessageFor(text: string): string {
  const message = text.replace(CONTRACT_VALIDATE_PREFIX, '').trim();
  if (/balance is not sufficient/i.test(message)) return 'balance is not sufficient';
  return message;
}

interface NodeErrorBody {
  Error?: unknown;
  result?: { result?: unknown; code?: unknown; message?: unknown };
}

/**
 * The error a builder or trigger answer carries, or null when it carries none. A TransactionExtention
 * with `result.message` is an error even when `result.result` is true (TronWeb's resultManager rule).
 */
export function nodeErrorFrom(body: unknown): TronNodeError | null {
  if (body === null || typeof body !== 'object') return null;
  const { Error: error, result } = body as NodeErrorBody;
  if (typeof error === 'string' && error !== '') {
    const message = stripJavaClass(decodeNodeText(error));
    return new TronNodeError(message, apiMessageFor(message));
  }
  if (result && typeof result === 'object') {
    const code = typeof result.code === 'string' ? result.code : null;
    const raw = typeof result.message === 'string' ? result.message : '';
    if (raw !== '' || (code !== null && code !== 'SUCCESS')) {
      const message = raw === '' ? (code ?? 'node error') : stripJavaClass(decodeNodeText(raw));
      return new TronNodeError(message, apiMessageFor(message), code);
    }
  }
  return null;
}

interface BroadcastBody {
  result?: unknown;
  code?: unknown;
  message?: unknown;
  txid?: unknown;
  Error?: unknown;
}

export type BroadcastOutcome = { ok: true; txid: string } | { ok: false; error: TronBroadcastError };

/**
 * Reads a broadcasttransaction answer for the transaction whose id is `txid`. DUP_TRANSACTION_ERROR
 * for that same id means the node already holds exactly this transaction (typically our own earlier
 * attempt whose answer was lost), so it counts as success.
 */
export function readBroadcastResponse(body: unknown, txid: string): BroadcastOutcome {
  const b = (body !== null && typeof body === 'object' ? body : {}) as BroadcastBody;
  const answeredTxid = typeof b.txid === 'string' && b.txid !== '' ? b.txid.toLowerCase() : null;
  if (b.result === true && (b.code === undefined || b.code === 'SUCCESS')) {
    return { ok: true, txid: answeredTxid ?? txid };
  }
  if (typeof b.Error === 'string') {
    const message = stripJavaClass(decodeNodeText(b.Error));
    return {
      ok: false,
      error: new TronBroadcastError('OTHER_ERROR', message, message, answeredTxid ?? txid),
    };
  }
  const code = typeof b.code === 'string' && b.code !== '' ? b.code : 'OTHER_ERROR';
  if (code === 'DUP_TRANSACTION_ERROR' && (answeredTxid === null || answeredTxid === txid)) {
    return { ok: true, txid };
  }
  const message = typeof b.message === 'string' && b.message !== '' ? decodeNodeText(b.message) : code;
  const apiMessage = code === 'SIGERROR' ? message : apiMessageFor(message);
  return { ok: false, error: new TronBroadcastError(code, message, apiMessage, answeredTxid ?? txid) };
}
