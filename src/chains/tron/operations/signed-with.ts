import type { SigningProof } from '../../../custody/address-keys.ts';
import type { SendRequest } from '../../operations.ts';
import type { Caller } from '../../ports.ts';
import type { PreparedSend } from '../../send-contract.ts';
import type { Network } from '../../types.ts';

/**
 * A send's `prepare` from what the body asks for: `password` / `privatekey` become the proof the send
 * pipeline signs with, and the rest of the body is the transfer (or staking action) prepared on `network`.
 */
export function signedWith<Body extends SigningProof>(
  prepare: (network: Network, send: Omit<Body, keyof SigningProof>) => PreparedSend,
): (caller: Caller, body: Body) => SendRequest {
  return ({ network }, { password, privatekey, ...send }) => ({
    proof: { password, privatekey },
    prepared: prepare(network, send),
  });
}
