/**
 * A transaction signed outside the gateway, read before it is broadcast: its signature (the txid) and
 * what the history records of it (a SOL transfer, an SPL TransferChecked, or `raw`).
 */
import type { Base64EncodedWireTransaction, Transaction } from '@solana/kit';
import { invalidField } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import type { SendRecord } from '../send-contract.ts';
import { LAMPORTS_DECIMALS } from './adapter.ts';
import { SYSTEM_PROGRAM } from './block-transfers.ts';
import { fromBase64, toBase58 } from './codec.ts';
import { COMPUTE_BUDGET_PROGRAM } from './fees.ts';
import { solanaKit, tokenInstructions } from './kit.ts';
import { TOKEN_PROGRAMS } from './token-accounts.ts';

const SYSTEM_TRANSFER = 2;
const TOKEN_TRANSFER_CHECKED = 12;

export interface SignedSolanaTransaction {
  signature: string;
  wire: Base64EncodedWireTransaction;
  record: SendRecord;
  /**
   * For an SPL transfer into an existing token account, that account: the history names its owner's
   * wallet (as a send's does), which only the node can tell.
   */
  receivingTokenAccount: string | null;
}

interface ReadInstruction {
  program: string;
  accounts: string[];
  data: Uint8Array;
}

/** Reads `rawtx` (base64 wire form); a 422 field error when it is not a signed transaction. */
export async function readSignedTransaction(rawtx: string): Promise<SignedSolanaTransaction> {
  const bytes = fromBase64(rawtx.trim());
  if (bytes === null) throw invalidField('rawtx', 'The rawtx field must be a transaction in base64.');
  const [kit, { ASSOCIATED_TOKEN_PROGRAM_ADDRESS }] = await Promise.all([solanaKit(), tokenInstructions()]);
  const { getBase64EncodedWireTransaction, getCompiledTransactionMessageDecoder, getTransactionDecoder } =
    kit;
  let transaction: Transaction;
  let instructions: ReadInstruction[];
  let feePayer: string;
  try {
    transaction = getTransactionDecoder().decode(bytes);
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    const keys = message.staticAccounts.map(String);
    feePayer = keys[0] ?? '';
    // A v1 message lays its instructions out otherwise; the history then records it as raw.
    const compiled = 'instructions' in message ? message.instructions : [];
    instructions = compiled.map((ix) => ({
      program: keys[ix.programAddressIndex] ?? '',
      accounts: (ix.accountIndices ?? []).map((i) => keys[i] ?? ''),
      data: Uint8Array.from(ix.data ?? []),
    }));
  } catch {
    throw invalidField('rawtx', 'The rawtx field is not a Solana transaction.');
  }
  const feePayerSignature = transaction.signatures[feePayer as keyof typeof transaction.signatures];
  if (!feePayerSignature || feePayerSignature.every((byte) => byte === 0)) {
    throw invalidField('rawtx', 'The transaction is not signed by its fee payer.');
  }
  // The program's own address, from the library that builds its instructions (a hand-typed one was wrong).
  const { record, receivingTokenAccount } = recordOf(
    feePayer,
    instructions,
    ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  );
  return {
    signature: toBase58(feePayerSignature),
    wire: getBase64EncodedWireTransaction(transaction),
    record,
    receivingTokenAccount,
  };
}

/** The history's words for the transaction's first instruction that moves an asset. */
function recordOf(
  feePayer: string,
  instructions: ReadInstruction[],
  associatedTokenProgram: string,
): { record: SendRecord; receivingTokenAccount: string | null } {
  const moving = instructions.filter(
    (ix) => ix.program !== COMPUTE_BUDGET_PROGRAM && ix.program !== associatedTokenProgram,
  );
  const first = moving[0];
  const view = first ? new DataView(first.data.buffer, first.data.byteOffset, first.data.byteLength) : null;
  if (
    first &&
    view &&
    first.program === SYSTEM_PROGRAM &&
    first.data.length >= 12 &&
    view.getUint32(0, true) === SYSTEM_TRANSFER
  ) {
    return {
      record: {
        type: 'SOL',
        from: first.accounts[0] ?? feePayer,
        to: first.accounts[1] ?? null,
        amount: assetAmount(view.getBigUint64(4, true), LAMPORTS_DECIMALS),
      },
      receivingTokenAccount: null,
    };
  }
  if (
    first &&
    view &&
    TOKEN_PROGRAMS.includes(first.program) &&
    first.data.length >= 10 &&
    first.data[0] === TOKEN_TRANSFER_CHECKED
  ) {
    const [, mint, destination, authority] = first.accounts;
    // The receiver's wallet, when the same transaction opens its token account; else the token account.
    const opening = instructions.find(
      (ix) => ix.program === associatedTokenProgram && ix.accounts[1] === destination,
    );
    return {
      record: {
        type: 'SPL',
        from: authority ?? feePayer,
        to: opening?.accounts[2] ?? destination ?? null,
        amount: assetAmount(view.getBigUint64(1, true), first.data[9] ?? 0),
        contractaddress: mint ?? null,
      },
      receivingTokenAccount: opening === undefined ? (destination ?? null) : null,
    };
  }
  return { record: { type: 'raw', from: feePayer, to: null, amount: null }, receivingTokenAccount: null };
}
