import { ApiError, WrongPasswordAnswer } from '../../errors.ts';
import type { SendWording } from '../family.ts';
import { toBase58Address } from './address.ts';
import { TronBroadcastError, TronNodeError } from './errors.ts';

/**
 * Tron sends answer as the node words it in the API's documented form (`balance is not sufficient`,
 * `Validate signature error ...`); the history keeps the node's code and whole message. Chaingateway's
 * Tron sends document one answer for a key or password that cannot sign for `from`: 422
 * `Validate signature error: …`, so a wrong password answers that too (it is still counted as a guess).
 */
export const tronSendWording: SendWording = {
  keyRefused: (signer, _from, txid) =>
    new ApiError(
      422,
      `Validate signature error: ${txid} is signed by ${signer} but it is not contained of permission.`,
    ),
  wrongPassword: (from) =>
    new WrongPasswordAnswer(
      422,
      `Validate signature error: the password does not open the key of ${toBase58Address(from)}`,
    ),
  sentResponse: (txid) => ({ result: true, txid }),
  failureRow: (error, txid) =>
    error instanceof TronBroadcastError || error instanceof TronNodeError
      ? { txid, response: { code: error.code, message: error.message }, httpStatus: 422 }
      : { txid, response: { code: null, message: error.message }, httpStatus: error.status },
  answer: tronAnswer,
};

/** The node's words, in the API's documented form (`balance is not sufficient`, `Validate signature error ...`). */
export function tronAnswer(error: unknown): unknown {
  if (error instanceof TronBroadcastError || error instanceof TronNodeError)
    return new ApiError(422, error.apiMessage);
  return error;
}
