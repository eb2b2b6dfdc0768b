// A signed Solana transaction as the devnet and the gateway take it: built and signed with @solana/kit.
import {
  appendTransactionMessageInstructions,
  type Base64EncodedWireTransaction,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';

/**
 * A transaction of `instructions` paid and signed by `payer` on the node's latest blockhash (base64),
 * legacy unless `version` 0 is asked for.
 */
export async function kitWire(
  url: string,
  payer: KeyPairSigner,
  instructions: Instruction[],
  version: 'legacy' | 0 = 'legacy',
): Promise<Base64EncodedWireTransaction> {
  const { value: latest } = await createSolanaRpc(url).getLatestBlockhash().send();
  const msg = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(msg));
}
