import { ApiError, WrongPasswordAnswer } from '../../errors.ts';
import type { SendWording } from '../family.ts';

/** TON sends answer refusals in their own words (the node's, for what it refused); the history keeps them. */
export const tonSendWording: SendWording = {
  keyRefused: (_signer, from) => new ApiError(422, `The private key does not belong to ${from}`),
  wrongPassword: () => new WrongPasswordAnswer(),
  sentResponse: (txid) => ({ txid }),
  failureRow: (error, txid) => ({ txid, response: { error: error.message }, httpStatus: error.status }),
  answer: (error) => error,
};
