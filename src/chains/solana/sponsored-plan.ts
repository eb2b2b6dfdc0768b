/**
 * A sponsored Solana transfer as one transaction whose fee payer is the sponsor: the receiver's
 * associated token account opened (idempotently) with the sponsor's lamports when it has none, then the
 * transfer (SPL TransferChecked, or a SOL transfer) signed by the owner. What it costs the sponsor is
 * known before it is sent: two signatures (the sponsor's and the owner's), the priority fee the family's
 * sends add while the accounts it writes pay one, and the rent of the account it opens.
 */
import type { Instruction, setTransactionMessageLifetimeUsingBlockhash, Transaction } from '@solana/kit';
import { ApiError, invalidField } from '../../errors.ts';
import { formatAmount } from '../amount.ts';
import type { SponsoredTransfer } from '../fee-sponsor.ts';
import { LAMPORTS_DECIMALS, type SolanaAdapter } from './adapter.ts';
import {
  computeBudgetInstructions,
  type PriorityFee,
  priorityPrice,
  transactionFee,
  unitLimit,
} from './fees.ts';
import { type SolanaKit, solanaKit, systemInstructions, tokenInstructions } from './kit.ts';
import {
  decodeTokenAccount,
  TOKEN_2022_ACCOUNT_BYTES,
  TOKEN_ACCOUNT_BYTES,
  TOKEN_PROGRAM,
} from './token-accounts.ts';
import { readMint } from './token-reads.ts';

/** The sponsor's signature and the owner's. */
const SPONSORED_SIGNATURES = 2;
/**
 * The compute units a SOL sweep paying its own fee is given (a transfer and a memo use well under a
 * thousand): fixed, so its fee is known before it is built and the sweep moves all the rest.
 */
const SELF_PAID_UNITS = 5_000n;

/** A sponsored transfer's instructions and what its fee payer pays for them, in lamports. */
export interface SponsoredPlan {
  /** The sponsor; or the owner, for a SOL sweep that pays its own fee (`selfPaidSolFee`). */
  feePayer: string;
  instructions: Instruction[];
  /** The fee: every signature and the priority fee. */
  fee: bigint;
  /** The rent of the receiver's token account the transaction opens; 0 when it has one. */
  rent: bigint;
}

const sol = (lamports: bigint) => formatAmount(lamports, LAMPORTS_DECIMALS);

/**
 * The transaction for `transfer` paid by `sponsor` (then `tail`), refused (422) when it cannot succeed:
 * a balance too small for the amount, a receiver that is a token account, or a SOL transfer that would
 * leave an account with lamports below the rent-exempt minimum.
 */
export async function sponsoredPlan(
  adapter: SolanaAdapter,
  transfer: SponsoredTransfer,
  sponsor: string,
  tail: Instruction[],
): Promise<SponsoredPlan> {
  const kit = await solanaKit();
  if (transfer.contract === null) {
    const { instructions, selfPaid } = await solTransfer(kit, adapter, transfer);
    if (selfPaid !== undefined) {
      return {
        feePayer: transfer.from,
        instructions: withBudget(kit, selfPaid, [...instructions, ...tail]),
        fee: transactionFee(1, selfPaid),
        rent: 0n,
      };
    }
    const all = [...instructions, ...tail];
    return withSponsorFee(kit, adapter, sponsor, [transfer.from, transfer.to], all, 0n);
  }
  const { writable, instructions, rent } = await splTransfer(
    kit,
    adapter,
    transfer,
    transfer.contract,
    sponsor,
  );
  return withSponsorFee(kit, adapter, sponsor, writable, [...instructions, ...tail], rent);
}

/**
 * The fee a SOL transfer from `owner` pays itself, one signature and, while its account paid a priority
 * fee lately, that price for a fixed number of units; with the priority fee it pays (null: none).
 */
export async function selfPaidSolFee(
  adapter: SolanaAdapter,
  owner: string,
): Promise<{ fee: bigint; priority: PriorityFee | null }> {
  const price = priorityPrice(await adapter.recentPriorityFees([owner]));
  const priority = price === 0n ? null : { price, limit: unitLimit(SELF_PAID_UNITS) };
  return { fee: transactionFee(1, priority), priority };
}

/** The plan compiled on `lifetime`, its signature slots empty. */
export function compiledPlan(
  kit: SolanaKit,
  plan: SponsoredPlan,
  lifetime: Parameters<typeof setTransactionMessageLifetimeUsingBlockhash>[0],
): Transaction {
  return kit.compileTransaction(message(kit, plan.feePayer, lifetime, plan.instructions));
}

async function withSponsorFee(
  kit: SolanaKit,
  adapter: SolanaAdapter,
  sponsor: string,
  writable: string[],
  instructions: Instruction[],
  rent: bigint,
): Promise<SponsoredPlan> {
  const priority = await priorityFor(kit, adapter, sponsor, [sponsor, ...writable], instructions);
  return {
    feePayer: sponsor,
    instructions: withBudget(kit, priority, instructions),
    fee: transactionFee(SPONSORED_SIGNATURES, priority),
    rent,
  };
}

function withBudget(
  kit: SolanaKit,
  priority: PriorityFee | null,
  instructions: Instruction[],
): Instruction[] {
  return priority === null ? instructions : [...computeBudgetInstructions(kit, priority), ...instructions];
}

interface TokenInstructions {
  /** The accounts the transfer writes besides the sponsor, whose recent priority fees price it. */
  writable: string[];
  instructions: Instruction[];
  rent: bigint;
}

/**
 * A SOL transfer. The sponsor pays the fee, so the owner may be emptied to 0, but never left rent-paying;
 * except a sweep that leaves exactly the fee the owner pays itself (`selfPaidSolFee`): then the owner pays
 * it, and ends with nothing.
 */
async function solTransfer(
  { address, createNoopSigner }: SolanaKit,
  adapter: SolanaAdapter,
  transfer: SponsoredTransfer,
): Promise<{ instructions: Instruction[]; selfPaid?: PriorityFee | null }> {
  const lamports = BigInt(transfer.units);
  const [balance, receiver, rentMinimum, { getTransferSolInstruction }] = await Promise.all([
    adapter.getBalance(transfer.from),
    adapter.getAccount(transfer.to),
    adapter.rentExemptMinimum(0),
    systemInstructions(),
  ]);
  if (balance < lamports) {
    throw new ApiError(
      422,
      `Insufficient funds: ${transfer.from} holds ${sol(balance)} SOL, and the transfer needs ${sol(lamports)} SOL`,
    );
  }
  if (receiver === null && lamports < rentMinimum) {
    throw new ApiError(
      422,
      `${transfer.to} has no account yet: a first transfer to it must be at least ${sol(rentMinimum)} SOL, the rent-exempt minimum`,
    );
  }
  const instructions = [
    getTransferSolInstruction({
      source: createNoopSigner(address(transfer.from)),
      destination: address(transfer.to),
      amount: lamports,
    }),
  ];
  const left = balance - lamports;
  if (left === 0n || left >= rentMinimum) return { instructions };
  const own = await selfPaidSolFee(adapter, transfer.from);
  if (left === own.fee) return { instructions, selfPaid: own.priority };
  throw new ApiError(
    422,
    `The transfer would leave ${transfer.from} with ${sol(left)} SOL, below the rent-exempt minimum of ${sol(rentMinimum)} SOL: leave at least that much, or send everything`,
  );
}

async function splTransfer(
  { address, createNoopSigner }: SolanaKit,
  adapter: SolanaAdapter,
  transfer: SponsoredTransfer,
  mintAddress: string,
  sponsor: string,
): Promise<TokenInstructions> {
  const [{ mint }, spl] = await Promise.all([readMint(adapter, mintAddress, 422), tokenInstructions()]);
  const {
    findAssociatedTokenPda,
    getCreateAssociatedTokenIdempotentInstruction,
    getTransferCheckedInstruction,
  } = spl;
  const units = BigInt(transfer.units);
  const tokenProgram = address(mint.program);
  const mintKey = address(mintAddress);
  const [[source], [destination]] = await Promise.all([
    findAssociatedTokenPda({ owner: address(transfer.from), mint: mintKey, tokenProgram }),
    findAssociatedTokenPda({ owner: address(transfer.to), mint: mintKey, tokenProgram }),
  ]);
  const [held, receiver, receiverAccount] = await Promise.all([
    adapter.getAccount(source),
    adapter.getAccount(transfer.to),
    adapter.getAccount(destination),
  ]);
  if (receiver !== null && decodeTokenAccount(receiver.owner, receiver.data) !== null) {
    throw invalidField('to', "The to field is a token account: give its owner's wallet address.");
  }
  const holding = held === null ? 0n : (decodeTokenAccount(held.owner, held.data)?.amount ?? 0n);
  if (holding < units) {
    throw new ApiError(
      422,
      `Insufficient funds: ${transfer.from} holds ${formatAmount(holding, mint.decimals)} of token ${mintAddress} in its associated token account, and the transfer needs ${formatAmount(units, mint.decimals)}`,
    );
  }
  const instructions: Instruction[] = [];
  let rent = 0n;
  if (receiverAccount === null) {
    rent = await adapter.rentExemptMinimum(
      mint.program === TOKEN_PROGRAM ? TOKEN_ACCOUNT_BYTES : TOKEN_2022_ACCOUNT_BYTES,
    );
    // Idempotent: a receiver whose account someone opens meanwhile still gets the tokens.
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({
        payer: createNoopSigner(address(sponsor)),
        ata: destination,
        owner: address(transfer.to),
        mint: mintKey,
        tokenProgram,
      }),
    );
  }
  instructions.push(
    getTransferCheckedInstruction(
      {
        source,
        mint: mintKey,
        destination,
        authority: createNoopSigner(address(transfer.from)),
        amount: units,
        decimals: mint.decimals,
      },
      { programAddress: tokenProgram },
    ),
  );
  return { writable: [source, destination], instructions, rent };
}

/**
 * The priority fee the family's sends pay (sends.ts): none while the accounts written paid none lately,
 * else the recent price for the compute units a simulation measured.
 */
async function priorityFor(
  kit: SolanaKit,
  adapter: SolanaAdapter,
  sponsor: string,
  writable: string[],
  instructions: Instruction[],
): Promise<PriorityFee | null> {
  const price = priorityPrice(await adapter.recentPriorityFees(writable));
  if (price === 0n) return null;
  const lifetime = await adapter.latestBlockhash();
  // Simulated unsigned (signatures are not verified), with the sponsor as fee payer, as it will be sent.
  const trial = kit.compileTransaction(message(kit, sponsor, lifetime, instructions));
  const simulated = await adapter.computeUnits(kit.getBase64EncodedWireTransaction(trial));
  return { price, limit: unitLimit(simulated.units ?? 200_000n) };
}

function message(
  kit: SolanaKit,
  feePayer: string,
  lifetime: Parameters<typeof setTransactionMessageLifetimeUsingBlockhash>[0],
  instructions: Instruction[],
) {
  return kit.pipe(
    kit.createTransactionMessage({ version: 'legacy' }),
    (m) => kit.setTransactionMessageFeePayer(kit.address(feePayer), m),
    (m) => kit.setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => kit.appendTransactionMessageInstructions(instructions, m),
  );
}
