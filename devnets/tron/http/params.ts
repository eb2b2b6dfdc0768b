// Request field readers with java-tron's JsonFormat.merge rules (visible => base58 addresses).
import type { Json } from '../json.ts';
import { JsonFormatError, jsonAddress, jsonInt } from '../transaction-json.ts';
import { type NodeRequest, ServletError } from './server.ts';

export const PARSE_EXCEPTION = 'class org.tron.core.services.http.JsonFormat$ParseException';
export const CONTRACT_VALIDATE_EXCEPTION = 'class org.tron.core.exception.ContractValidateException';

export function asServletError(err: unknown): unknown {
  return err instanceof JsonFormatError ? new ServletError(PARSE_EXCEPTION, err.message) : err;
}

export function addressParam(req: NodeRequest, key: string): string {
  try {
    return jsonAddress(req.params[key], req.visible);
  } catch (err) {
    throw asServletError(err);
  }
}

export function intParam(req: NodeRequest, key: string): bigint {
  try {
    return jsonInt(req.params[key], key);
  } catch (err) {
    throw asServletError(err);
  }
}

export function stringParam(req: NodeRequest, key: string): string {
  const v: Json | undefined = req.params[key];
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

export function boolParam(req: NodeRequest, key: string): boolean {
  const v = req.params[key];
  return v === true || v === 'true';
}
