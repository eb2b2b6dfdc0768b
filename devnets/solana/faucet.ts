// The faucet: a fixed devnet key that signs real transactions (SOL transfers, the USDT mint, its
// associated token accounts and mints), so airdrops land in blocks and read back like any transaction.

import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import {
  type Address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase58Decoder,
  getTransactionEncoder,
  type Instruction,
  type KeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';

/** A 64-byte seed || public key from a label: for this devnet only. */
export function devnetSecretKey(label: string): Uint8Array {
  const seed = sha256(new TextEncoder().encode(label));
  const out = new Uint8Array(64);
  out.set(seed, 0);
  out.set(ed25519.getPublicKey(seed), 32);
  return out;
}

export async function faucetSigner(secretKey: Uint8Array): Promise<KeyPairSigner> {
  return createKeyPairSignerFromBytes(secretKey);
}

export const secretKeyBase58 = (key: Uint8Array) => getBase58Decoder().decode(key);

/** Signs instructions with the faucet (and any extra signers) as a legacy transaction; wire bytes. */
export async function signedWire(
  payer: KeyPairSigner,
  blockhash: string,
  instructions: Instruction[],
): Promise<Uint8Array> {
  const msg = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash as Blockhash, lastValidBlockHeight: 0n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const tx = await signTransactionMessageWithSigners(msg);
  return new Uint8Array(getTransactionEncoder().encode(tx));
}

export function transferIx(payer: KeyPairSigner, to: string, lamports: bigint): Instruction {
  return getTransferSolInstruction({ source: payer, destination: to as Address, amount: lamports });
}

/** A mint without extensions; under Token-2022 too (its base mint layout is the classic 82 bytes). */
export function createMintIxs(
  payer: KeyPairSigner,
  mint: KeyPairSigner,
  rentLamports: bigint,
  decimals: number,
  tokenProgram: string = TOKEN_PROGRAM_ADDRESS,
): Instruction[] {
  const programAddress = tokenProgram as Address;
  return [
    getCreateAccountInstruction({
      payer,
      newAccount: mint,
      lamports: rentLamports,
      space: 82,
      programAddress,
    }),
    getInitializeMint2Instruction(
      { mint: mint.address, decimals, mintAuthority: payer.address },
      { programAddress },
    ),
  ];
}

/** The owner's ATA (created when missing) and a mintTo, under the mint's own token program. */
export async function mintToOwnerIxs(
  payer: KeyPairSigner,
  mint: string,
  owner: string,
  units: bigint,
  tokenProgram: string = TOKEN_PROGRAM_ADDRESS,
): Promise<Instruction[]> {
  const programAddress = tokenProgram as Address;
  const [ata] = await findAssociatedTokenPda({
    mint: mint as Address,
    owner: owner as Address,
    tokenProgram: programAddress,
  });
  return [
    getCreateAssociatedTokenIdempotentInstruction({
      payer,
      ata,
      owner: owner as Address,
      mint: mint as Address,
      tokenProgram: programAddress,
    }),
    getMintToInstruction(
      { mint: mint as Address, token: ata, mintAuthority: payer, amount: units },
      { programAddress },
    ),
  ];
}
