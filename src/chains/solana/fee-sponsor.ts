/**
 * Solana's fee sponsor (the paymaster, sweeps): the sponsor is the transaction's fee payer. One
 * transaction, signed by the sponsor and the owner, opens the receiver's token account when needed (the
 * sponsor pays its rent) and moves the SOL or SPL tokens; the owner needs no SOL. Nothing is lent, so
 * nothing is taken back.
 */
import { invalidField } from '../../errors.ts';
import { formatAmount } from '../amount.ts';
import {
  type FeeSponsor,
  type KeyHolder,
  type PaymasterRequest,
  type SponsoredRun,
  type SponsoredTransfer,
  type SponsorQuote,
  SponsorshipRefused,
} from '../fee-sponsor.ts';
import type { ChainRegistry } from '../registry.ts';
import type { ChainName, Network } from '../types.ts';
import { LAMPORTS_DECIMALS, SolanaAdapter } from './adapter.ts';
import { distinctMemo } from './distinct-memo.ts';
import { type SolanaKit, solanaKit, tokenInstructions } from './kit.ts';
import { addressField, amountOf, solReceiverField } from './request-fields.ts';
import { errorText } from './settling.ts';
import {
  land,
  landedCost,
  type NotedTransaction,
  notedTransaction,
  noteTransaction,
} from './sponsored-landing.ts';
import { compiledPlan, selfPaidSolFee, sponsoredPlan } from './sponsored-plan.ts';
import { decodeTokenAccount } from './token-accounts.ts';
import { readMint } from './token-reads.ts';

/** The paymaster types, as the family's transfers are named (`transferTypes`). */
const SPONSORED_TYPES = ['SOL', 'SPL'] as const;
/** Transactions a run builds at most when each one's blockhash expires before it lands. */
const MAX_BUILDS = 3;

const sol = (lamports: bigint) => formatAmount(lamports, LAMPORTS_DECIMALS);

export class SolanaFeeSponsor implements FeeSponsor {
  constructor(private readonly registry: ChainRegistry) {}

  types(_chain: ChainName): readonly string[] {
    return SPONSORED_TYPES;
  }

  async transfer(_chain: ChainName, network: Network, request: PaymasterRequest): Promise<SponsoredTransfer> {
    const from = addressField('from', request.from);
    if (request.amount === undefined || request.amount === '') {
      throw invalidField('amount', 'The amount field is required.');
    }
    const mintAddress = request.contractaddress ?? '';
    if (request.type === 'SOL') {
      if (mintAddress !== '') {
        throw invalidField('contractaddress', 'A SOL transfer takes no contractaddress.');
      }
      const to = solReceiverField(request.to);
      const units = positive(amountOf(request.amount, LAMPORTS_DECIMALS));
      return { type: 'SOL', from, to, contract: null, tokenId: null, units, decimals: LAMPORTS_DECIMALS };
    }
    if (request.type !== 'SPL') {
      throw invalidField('type', `The type field must be one of ${SPONSORED_TYPES.join(', ')} on Solana.`);
    }
    const to = addressField('to', request.to);
    if (mintAddress === '')
      throw invalidField('contractaddress', "The contractaddress field is required: the token's mint.");
    const mint = addressField('contractaddress', mintAddress);
    const { mint: read } = await readMint(this.adapter(network), mint, 422);
    const units = positive(amountOf(request.amount, read.decimals));
    return { type: 'SPL', from, to, contract: mint, tokenId: null, units, decimals: read.decimals };
  }

  async quote(
    _chain: ChainName,
    network: Network,
    transfer: SponsoredTransfer,
    sponsor: string,
  ): Promise<SponsorQuote> {
    const plan = await sponsoredPlan(this.adapter(network), transfer, sponsor, [await distinctMemo()]);
    // A SOL sweep that pays its own fee costs the sponsor nothing.
    const sponsored = plan.feePayer === sponsor;
    const fee = sponsored ? plan.fee : 0n;
    const maxCost = fee + plan.rent;
    return {
      maxCost,
      answer: {
        fee_lamports: fee.toString(),
        rent_lamports: plan.rent.toString(),
        paymaster_fee: sol(maxCost),
        fee_payer: plan.feePayer,
      },
    };
  }

  /**
   * Resumes the transaction an earlier run noted while it can still land; else builds, notes and sends a
   * new one (at most MAX_BUILDS while blockhashes expire). Records what the sponsor lost from the landed
   * transaction's meta.
   */
  async run(run: SponsoredRun): Promise<{ txid: string }> {
    const adapter = this.adapter(run.network);
    const earlier = notedTransaction(run.journal.notes);
    if (earlier !== null && (await land(adapter, earlier)) === 'landed') {
      return this.settled(adapter, run, earlier.signature);
    }
    for (let built = 0; built < MAX_BUILDS; built++) {
      const signed = await this.signed(adapter, run);
      await noteTransaction(run.journal, signed);
      if ((await land(adapter, signed)) === 'landed') return this.settled(adapter, run, signed.signature);
    }
    throw new SponsorshipRefused(
      `the transaction did not land before its blockhash expired, ${MAX_BUILDS} times`,
    );
  }

  /** Nothing is lent on Solana: the sponsor only pays the fee and the rent of the account opened. */
  async unwind(_run: SponsoredRun): Promise<void> {}

  async decimals(_chain: ChainName, network: Network, contract: string | null): Promise<number> {
    if (contract === null) return LAMPORTS_DECIMALS;
    const { mint } = await readMint(this.adapter(network), addressField('contractaddress', contract), 422);
    return mint.decimals;
  }

  /** SOL: the lamports. A token: what the owner's associated token account holds, which a transfer moves. */
  async holding(
    _chain: ChainName,
    network: Network,
    owner: string,
    contract: string | null,
  ): Promise<bigint> {
    const adapter = this.adapter(network);
    if (contract === null) return adapter.getBalance(owner);
    const [{ mint }, { address }, { findAssociatedTokenPda }] = await Promise.all([
      readMint(adapter, contract, 422),
      solanaKit(),
      tokenInstructions(),
    ]);
    const [ata] = await findAssociatedTokenPda({
      owner: address(owner),
      mint: address(contract),
      tokenProgram: address(mint.program),
    });
    const account = await adapter.getAccount(ata);
    return account === null ? 0n : (decodeTokenAccount(account.owner, account.data)?.amount ?? 0n);
  }

  /**
   * A token: all of it (none: null). SOL: all but the fee the address pays itself, which empties it (a
   * system account may go to 0); null when that leaves nothing.
   */
  async sweepUnits(
    _chain: ChainName,
    network: Network,
    owner: string,
    contract: string | null,
    held: bigint,
  ): Promise<bigint | null> {
    if (contract !== null) return held > 0n ? held : null;
    const { fee } = await selfPaidSolFee(this.adapter(network), owner);
    return held > fee ? held - fee : null;
  }

  /** A new transaction for the run, signed by its fee payer and the owner. */
  private async signed(adapter: SolanaAdapter, run: SponsoredRun): Promise<NotedTransaction> {
    const { transfer, sponsor, owner } = run;
    const plan = await sponsoredPlan(adapter, transfer, sponsor.address, [await distinctMemo()]);
    const cost = (plan.feePayer === sponsor.address ? plan.fee : 0n) + plan.rent;
    if (cost > run.maxCost) throw costsMoreThanReserved(cost, run.maxCost);
    const [kit, lifetime] = await Promise.all([solanaKit(), adapter.latestBlockhash()]);
    const ownerKeys = await keyPairOf(kit, owner);
    if ((await kit.getAddressFromPublicKey(ownerKeys.publicKey)) !== transfer.from) {
      throw new SponsorshipRefused(`the owner's key is not the key of ${transfer.from}`);
    }
    const keys = plan.feePayer === sponsor.address ? [await keyPairOf(kit, sponsor), ownerKeys] : [ownerKeys];
    const signed = await kit.signTransaction(keys, compiledPlan(kit, plan, lifetime));
    return {
      signature: kit.getSignatureFromTransaction(signed),
      wire: kit.getBase64EncodedWireTransaction(signed),
      lastValidBlockHeight: lifetime.lastValidBlockHeight,
    };
  }

  /** Records what the landed transaction cost the sponsor; a failed one is the job's refusal. */
  private async settled(
    adapter: SolanaAdapter,
    run: SponsoredRun,
    signature: string,
  ): Promise<{ txid: string }> {
    const cost = await landedCost(adapter, signature);
    if (cost.feePayer === run.sponsor.address) {
      await run.journal.spent('fee', cost.fee, signature);
      // The rest of what the fee payer lost is the rent of the token account the transaction opened.
      const rent = cost.payerLoss - cost.fee;
      if (rent > 0n) await run.journal.spent('rent', rent, signature);
    }
    if (cost.error !== null) throw new SponsorshipRefused(`failed on chain: ${errorText(cost.error)}`);
    return { txid: signature };
  }

  private adapter(network: Network): SolanaAdapter {
    return this.registry.adapterOf('solana', network, SolanaAdapter);
  }
}

function keyPairOf(kit: SolanaKit, holder: KeyHolder) {
  return kit.createKeyPairFromPrivateKeyBytes(Buffer.from(holder.privateKey, 'hex'));
}

/** Base units as a sponsored transfer keeps them; nothing to move is no transfer. */
function positive(units: bigint): string {
  if (units === 0n) throw invalidField('amount', 'The amount field must be more than 0.');
  return units.toString();
}

/** Fees rose since the quote: the run would spend more than its job reserved. */
function costsMoreThanReserved(cost: bigint, reserved: bigint): SponsorshipRefused {
  return new SponsorshipRefused(
    `fees rose since the estimate: the transfer would now cost the sponsor ${sol(cost)} SOL, ${sol(reserved)} SOL was reserved; ask again`,
  );
}
