/**
 * The Solana side of the send pipeline (services/send-pipeline.ts): SOL and SPL sends checked against
 * what the accounts hold (the fee, rent exemption, the receiver's token account), built with
 * @solana/kit, signed with the stored or given key and sent; the unsigned builds; the broadcasts of
 * transactions signed elsewhere.
 */
import type { Instruction, setTransactionMessageLifetimeUsingBlockhash, Transaction } from '@solana/kit';
import { ApiError, invalidField } from '../../errors.ts';
import { assetAmount, formatAmount } from '../amount.ts';
import type { ChainRegistry } from '../registry.ts';
import type { BuiltSend, PreparedSend, SendRecord, SignedBroadcast } from '../send-contract.ts';
import type { Network } from '../types.ts';
import { LAMPORTS_DECIMALS, SolanaAdapter } from './adapter.ts';
import { distinctMemo } from './distinct-memo.ts';
import {
  computeBudgetInstructions,
  type PriorityFee,
  priorityPrice,
  transactionFee,
  unitLimit,
} from './fees.ts';
import { type SolanaKit, solanaKit, systemInstructions, tokenInstructions } from './kit.ts';
import { addressField, amountOf, solReceiverField } from './request-fields.ts';
import { SendsInFlight, type Spend } from './sends-in-flight.ts';
import { readSignedTransaction } from './signed-transaction.ts';
import {
  decodeTokenAccount,
  TOKEN_2022_ACCOUNT_BYTES,
  TOKEN_ACCOUNT_BYTES,
  TOKEN_PROGRAMS,
} from './token-accounts.ts';
import { readMint } from './token-reads.ts';

export interface SolanaSendFields {
  from: string;
  to: string;
  amount: unknown;
}

export type SplSendFields = SolanaSendFields & { contractaddress: string };

/** A transfer's instructions with the fee they cost. */
interface PricedInstructions {
  from: string;
  instructions: Instruction[];
  priority: PriorityFee | null;
  fee: bigint;
  record: SendRecord;
}

/** What a transfer is, once checked: its instructions, fee, what it takes and the history's words for it. */
interface TransferPlan extends PricedInstructions {
  spend: Spend;
}

/** The answer of a build: the transaction to sign, and what it will cost. */
export interface SolanaBuild {
  unsigned: string;
  fee: string;
  blockhash: string;
  lastValidBlockHeight: string;
  priorityFee: { microLamportsPerUnit: string; computeUnitLimit: string } | null;
}

const sol = (lamports: bigint) => formatAmount(lamports, LAMPORTS_DECIMALS);

export class SolanaSends {
  readonly #inFlight = new SendsInFlight();

  constructor(private readonly registry: ChainRegistry) {}

  sol(network: Network, body: SolanaSendFields): PreparedSend {
    const lamports = amountOf(body.amount, LAMPORTS_DECIMALS);
    const from = addressField('from', body.from);
    const to = solReceiverField(body.to);
    const record: SendRecord = { type: 'SOL', from, to, amount: assetAmount(lamports, LAMPORTS_DECIMALS) };
    return this.prepared(network, from, record, (adapter, tail) =>
      solPlan(adapter, from, to, lamports, tail),
    );
  }

  spl(network: Network, body: SplSendFields): PreparedSend {
    const from = addressField('from', body.from);
    const to = addressField('to', body.to);
    const mint = addressField('contractaddress', body.contractaddress);
    const record: SendRecord = { type: 'SPL', from, to, amount: null, contractaddress: mint };
    return this.prepared(network, from, record, (adapter, tail) =>
      splPlan(adapter, from, to, mint, body.amount, tail),
    );
  }

  /**
   * An unsigned transaction to sign elsewhere; nothing is sent or stored. It has no memo: whoever signs
   * it decides what it carries.
   */
  async build(network: Network, body: SolanaSendFields & { contractaddress?: string }): Promise<SolanaBuild> {
    const adapter = this.adapter(network);
    const from = addressField('from', body.from);
    const mint =
      body.contractaddress === undefined || body.contractaddress === '' ? null : body.contractaddress;
    const plan =
      mint === null
        ? await solPlan(
            adapter,
            from,
            solReceiverField(body.to),
            amountOf(body.amount, LAMPORTS_DECIMALS),
            [],
          )
        : await splPlan(
            adapter,
            from,
            addressField('to', body.to),
            addressField('contractaddress', mint),
            body.amount,
            [],
          );
    const { transaction, lifetime } = await compiled(adapter, plan);
    const { getBase64EncodedWireTransaction } = await solanaKit();
    return {
      unsigned: getBase64EncodedWireTransaction(transaction),
      fee: sol(plan.fee),
      blockhash: lifetime.blockhash,
      lastValidBlockHeight: lifetime.lastValidBlockHeight.toString(),
      priorityFee:
        plan.priority === null
          ? null
          : {
              microLamportsPerUnit: plan.priority.price.toString(),
              computeUnitLimit: plan.priority.limit.toString(),
            },
    };
  }

  /** A transaction signed elsewhere (base64 wire form), read before it is sent. */
  async broadcast(network: Network, rawtx: string): Promise<SignedBroadcast> {
    const adapter = this.adapter(network);
    const signed = await readSignedTransaction(rawtx);
    return {
      txid: signed.signature,
      record: async () => {
        const into = signed.receivingTokenAccount;
        if (into === null) return signed.record;
        // The wallet that owns the receiving token account, as a send records it; else (no such account,
        // or the node not answering: the broadcast then says so) the account itself.
        const account = await adapter.getAccount(into).catch(() => null);
        const held = account === null ? null : decodeTokenAccount(account.owner, account.data);
        return held === null ? signed.record : { ...signed.record, to: held.owner };
      },
      broadcast: async (intent) => {
        await intent(signed.signature);
        return adapter.sendTransaction(signed.wire);
      },
    };
  }

  private adapter(network: Network): SolanaAdapter {
    return this.registry.adapterOf('solana', network, SolanaAdapter);
  }

  private prepared(
    network: Network,
    from: string,
    record: SendRecord,
    plan: (adapter: SolanaAdapter, tail: Instruction[]) => Promise<TransferPlan>,
  ): PreparedSend {
    const adapter = this.adapter(network);
    return {
      from,
      record,
      build: async (): Promise<BuiltSend> => {
        // The memo keeps two equal sends two transactions (distinct-memo.ts).
        const checked = await plan(adapter, [await distinctMemo()]);
        Object.assign(record, { amount: checked.record.amount });
        const { transaction, lifetime } = await compiled(adapter, checked);
        return {
          txid: null,
          send: async (privateKey, intent) => {
            const kit = await solanaKit();
            const keys = await kit.createKeyPairFromPrivateKeyBytes(Buffer.from(privateKey, 'hex'));
            const signed = await kit.signTransaction([keys], transaction);
            const txid = await this.#inFlight.send(
              adapter,
              from,
              checked.spend,
              lifetime.lastValidBlockHeight,
              async () => {
                await intent(kit.getSignatureFromTransaction(signed));
                return adapter.sendTransaction(kit.getBase64EncodedWireTransaction(signed));
              },
            );
            return { txid, data: { txid, fee: sol(checked.fee) } };
          },
        };
      },
    };
  }
}

/** A SOL transfer (then `tail`), refused before signing when it cannot succeed. */
async function solPlan(
  adapter: SolanaAdapter,
  from: string,
  to: string,
  lamports: bigint,
  tail: Instruction[],
): Promise<TransferPlan> {
  const [{ address, createNoopSigner }, { getTransferSolInstruction }] = await Promise.all([
    solanaKit(),
    systemInstructions(),
  ]);
  const instructions = [
    getTransferSolInstruction({
      source: createNoopSigner(address(from)),
      destination: address(to),
      amount: lamports,
    }),
    ...tail,
  ];
  const [balance, receiver, rentMinimum] = await Promise.all([
    adapter.getBalance(from),
    adapter.getAccount(to),
    adapter.rentExemptMinimum(0),
  ]);
  if (receiver === null && lamports < rentMinimum) {
    throw new ApiError(
      422,
      `${to} has no account yet: a first transfer to it must be at least ${sol(rentMinimum)} SOL, the rent-exempt minimum`,
    );
  }
  const plan = await withFee(adapter, from, [from, to], instructions, {
    type: 'SOL',
    from,
    to,
    amount: assetAmount(lamports, LAMPORTS_DECIMALS),
  });
  assertCanPay(from, balance, lamports, plan.fee, rentMinimum);
  return { ...plan, spend: { lamports: lamports + plan.fee, token: null, rentMinimum } };
}

/**
 * An SPL transfer (Token or Token-2022), opening the receiver's token account when it has none; then
 * `tail`.
 */
async function splPlan(
  adapter: SolanaAdapter,
  from: string,
  to: string,
  mintAddress: string,
  amount: unknown,
  tail: Instruction[],
): Promise<TransferPlan> {
  const [{ mint }, { address, createNoopSigner }, spl] = await Promise.all([
    readMint(adapter, mintAddress, 422),
    solanaKit(),
    tokenInstructions(),
  ]);
  const {
    findAssociatedTokenPda,
    getCreateAssociatedTokenIdempotentInstruction,
    getTransferCheckedInstruction,
  } = spl;
  const units = amountOf(amount, mint.decimals);
  const tokenProgram = address(mint.program);
  const [[source], [destination]] = await Promise.all([
    findAssociatedTokenPda({ owner: address(from), mint: address(mintAddress), tokenProgram }),
    findAssociatedTokenPda({ owner: address(to), mint: address(mintAddress), tokenProgram }),
  ]);
  const [balance, held, receiver, receiverAccount, rentMinimum] = await Promise.all([
    adapter.getBalance(from),
    adapter.getAccount(source),
    adapter.getAccount(to),
    adapter.getAccount(destination),
    adapter.rentExemptMinimum(0),
  ]);
  if (receiver !== null && decodeTokenAccount(receiver.owner, receiver.data) !== null) {
    throw invalidField('to', "The to field is a token account: give its owner's wallet address.");
  }
  const sourceTokens = held === null ? null : decodeTokenAccount(held.owner, held.data);
  const holding = sourceTokens?.amount ?? 0n;
  if (holding < units) {
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${formatAmount(holding, mint.decimals)} of token ${mintAddress} in its associated token account, and the transfer needs ${formatAmount(units, mint.decimals)}`,
    );
  }
  const signer = createNoopSigner(address(from));
  const instructions: Instruction[] = [];
  let openingRent = 0n;
  if (receiverAccount === null) {
    openingRent = await adapter.rentExemptMinimum(
      mint.program === TOKEN_PROGRAMS[0] ? TOKEN_ACCOUNT_BYTES : TOKEN_2022_ACCOUNT_BYTES,
    );
    instructions.push(
      getCreateAssociatedTokenIdempotentInstruction({
        payer: signer,
        ata: destination,
        owner: address(to),
        mint: address(mintAddress),
        tokenProgram,
      }),
    );
  }
  instructions.push(
    getTransferCheckedInstruction(
      {
        source,
        mint: address(mintAddress),
        destination,
        authority: signer,
        amount: units,
        decimals: mint.decimals,
      },
      { programAddress: tokenProgram },
    ),
    ...tail,
  );
  const plan = await withFee(adapter, from, [from, source, destination], instructions, {
    type: 'SPL',
    from,
    to,
    amount: assetAmount(units, mint.decimals),
    contractaddress: mintAddress,
  });
  if (balance < plan.fee + openingRent) {
    const opening = openingRent > 0n ? ` and ${sol(openingRent)} SOL to open the token account of ${to}` : '';
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${sol(balance)} SOL and needs ${sol(plan.fee)} SOL for the fee${opening}`,
    );
  }
  assertCanPay(from, balance, openingRent, plan.fee, rentMinimum);
  const token = { account: source, mint: mintAddress, units, decimals: mint.decimals };
  return { ...plan, spend: { lamports: openingRent + plan.fee, token, rentMinimum } };
}

/**
 * The plan with its fee: the base fee while the accounts it writes see no priority fees, else the
 * recent price for the compute units a simulation measured.
 */
async function withFee(
  adapter: SolanaAdapter,
  from: string,
  writable: string[],
  instructions: Instruction[],
  record: SendRecord,
): Promise<PricedInstructions> {
  const price = priorityPrice(await adapter.recentPriorityFees(writable));
  if (price === 0n) return { from, instructions, priority: null, fee: transactionFee(1, null), record };
  const kit = await solanaKit();
  const { blockhash, lastValidBlockHeight } = await adapter.latestBlockhash();
  const trial = kit.compileTransaction(message(kit, from, { blockhash, lastValidBlockHeight }, instructions));
  const simulated = await adapter.computeUnits(kit.getBase64EncodedWireTransaction(trial));
  // A transaction that would fail is refused by the checks after this one, or by the node's preflight.
  const priority = { price, limit: unitLimit(simulated.units ?? 200_000n) };
  return {
    from,
    instructions: [...computeBudgetInstructions(kit, priority), ...instructions],
    priority,
    fee: transactionFee(1, priority),
    record,
  };
}

/**
 * Refuses what the network would: spending more than the balance, or leaving the sender with lamports
 * below the rent-exempt minimum (an account may be emptied, not left rent-paying).
 */
function assertCanPay(from: string, balance: bigint, spent: bigint, fee: bigint, rentMinimum: bigint): void {
  const needed = spent + fee;
  if (balance < needed) {
    throw new ApiError(
      422,
      `Insufficient funds: ${from} holds ${sol(balance)} SOL, and the transfer needs ${sol(needed)} SOL (${sol(spent)} SOL and a fee of ${sol(fee)} SOL)`,
    );
  }
  const left = balance - needed;
  if (left > 0n && left < rentMinimum) {
    throw new ApiError(
      422,
      `The transfer would leave ${from} with ${sol(left)} SOL, below the rent-exempt minimum of ${sol(rentMinimum)} SOL: leave at least that much, or send everything but the fee`,
    );
  }
}

function message(
  kit: SolanaKit,
  from: string,
  lifetime: Parameters<typeof setTransactionMessageLifetimeUsingBlockhash>[0],
  instructions: Instruction[],
) {
  return kit.pipe(
    kit.createTransactionMessage({ version: 'legacy' }),
    (m) => kit.setTransactionMessageFeePayer(kit.address(from), m),
    (m) => kit.setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => kit.appendTransactionMessageInstructions(instructions, m),
  );
}

/** The plan compiled on a fresh blockhash, its signature slot empty. */
async function compiled(adapter: SolanaAdapter, plan: PricedInstructions) {
  const [kit, lifetime] = await Promise.all([solanaKit(), adapter.latestBlockhash()]);
  const transaction: Transaction = kit.compileTransaction(
    message(kit, plan.from, lifetime, plan.instructions),
  );
  return { transaction, lifetime };
}
