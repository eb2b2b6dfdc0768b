import { ApiError, WrongPasswordAnswer } from '../../errors.ts';
import type { SendWording } from '../family.ts';
import { checksumAddress } from './keys.ts';

/** EVM sends answer the node's refusals as they are; the history keeps the refusal's message and status. */
export const evmSendWording: SendWording = {
  keyRefused: (_signer, from) =>
    new ApiError(422, `The private key does not belong to ${checksumAddress(from)}`),
  wrongPassword: () => new WrongPasswordAnswer(),
  sentResponse: (txid) => ({ txid }),
  failureRow: (error) => ({ txid: null, response: { error: error.message }, httpStatus: error.status }),
  answer: (error) => error,
};
