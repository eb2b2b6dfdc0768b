/**
 * What keeps two equal sends apart. A Solana transaction is its message: two sends from the same address
 * of the same amount to the same receiver, built on the same recent blockhash, are byte for byte one
 * transaction with one signature, and the network runs it once ("This transaction has already been
 * processed"). So every send the gateway signs carries a Memo instruction with 64 random bits: equal
 * sends differ whichever process or gateway instance builds them, with nothing shared between them.
 */
import { randomBytes } from 'node:crypto';
import type { Instruction } from '@solana/kit';
import { solanaKit } from './kit.ts';

/** SPL Memo (v2), deployed at this address on mainnet-beta, devnet and testnet alike. */
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/**
 * The Memo instruction: 16 hex digits, no signer. It costs no lamports (the fee is per signature) and
 * about 300 compute units, which a priority fee prices like the rest of the transaction. It goes after the
 * transfer: a receiver's token account that requires a memo before incoming transfers is not satisfied by it.
 */
export async function distinctMemo(): Promise<Instruction> {
  const { address } = await solanaKit();
  return {
    programAddress: address(MEMO_PROGRAM),
    data: new TextEncoder().encode(randomBytes(8).toString('hex')),
  };
}
