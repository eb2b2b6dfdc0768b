import { ApiError, WrongPasswordAnswer } from '../../errors.ts';
import type { SendWording } from '../family.ts';

/**
 * Bitcoin sends answer refusals in their own words (the node's, for what it refused); the history keeps
 * them. Chaingateway's Bitcoin send documents one answer for a wrong password, 422 with Bitcoin Core's
 * words for a wallet passphrase, so a send answers that (still counted as a guess).
 */
export const bitcoinSendWording: SendWording = {
  keyRefused: (_signer, from) => new ApiError(422, `The private key does not belong to ${from}`),
  wrongPassword: () => new WrongPasswordAnswer(422, 'Error: The wallet passphrase entered was incorrect.'),
  sentResponse: (txid) => ({ txid }),
  failureRow: (error, txid) => ({ txid, response: { error: error.message }, httpStatus: error.status }),
  answer: (error) => error,
};
