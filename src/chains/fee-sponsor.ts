/**
 * How a family pays the fee of a transfer from an address that holds none of the coin (Chaingateway's
 * paymaster, and sweeps). The jobs, the budget, the plan's allowance, the ledger and the callbacks are
 * written once (`src/sponsorship/`); a family says only how its sponsor pays (Tron: delegated energy and
 * bandwidth; EVM: an exact top-up; Solana: the sponsor as fee payer). A family without one (Bitcoin, which
 * pays its fee from the coins it moves) has none, and its paymaster routes say so.
 */
import type { ChainName, Network } from './types.ts';

/** What a paymaster request asks to move, as Chaingateway's body names it (amount in the asset's units). */
export interface PaymasterRequest {
  /** TRX, TRC10, TRC20, TRC721, or the chain's own names (ETH, ERC20, ERC721, SOL, SPL ...). */
  type: string;
  from: string;
  to: string;
  contractaddress?: string | undefined;
  tokenid?: string | undefined;
  /** Decimal text in the asset's units (the route has checked it is a plain decimal). */
  amount?: string | undefined;
}

/** A transfer a sponsor pays for, checked against the node: what moves, in base units. */
export interface SponsoredTransfer {
  /** What moves, in the chain's words as the history records it (TRX, TRC20, ERC20, SPL ...). */
  type: string;
  from: string;
  to: string;
  /** The token's contract or mint; null for the coin and TRC10 tokens. */
  contract: string | null;
  /** A TRC10 token's id or an NFT's id; null otherwise. */
  tokenId: string | null;
  /** Base units, as decimal text (how a job keeps it exactly); an NFT moves "1". */
  units: string;
  /** The asset's decimals, for answers in its units. */
  decimals: number;
}

/** What a sponsored transfer will cost the sponsor, asked before anything is reserved or sent. */
export interface SponsorQuote {
  /**
   * The most the sponsor can lose on it, in the coin's base units: what is reserved from the sponsor's
   * budget and the caller's allowance, and what the ledger's entries for it never exceed.
   */
  maxCost: bigint;
  /**
   * The estimate's answer, in the family's words: Tron's `energy_consumption`, `bandwidth_consumption`
   * and `paymaster_fee`; EVM's gas; Solana's lamports. Amounts as decimal text in the coin's units.
   */
  answer: Record<string, string | number>;
}

/** An address whose key the job signs with. */
export interface KeyHolder {
  address: string;
  /** Hex. */
  privateKey: string;
}

/**
 * What a job keeps between its steps, in the database, so that a process that dies at any step leaves
 * what the next one needs to resume the job or unwind it: a step notes what it is about to do (the txid
 * of the delegation it signed) before the node gets it, and what it did once done.
 */
export interface SponsorJournal {
  /** What earlier steps noted, including those of a process that died. */
  readonly notes: Readonly<Record<string, string>>;
  /** Keeps `notes` with the job (merged into the earlier ones); awaited before the step goes on. */
  note(notes: Record<string, string>): Promise<void>;
  /**
   * A cost the sponsor bore, exactly (the coin's base units), with the transaction that bore it, for the
   * ledger. One transaction is counted once, however often a resumed job reports it (`what` + `txid`).
   */
  spent(what: string, units: bigint, txid: string): Promise<void>;
}

/** One run of a sponsored transfer's job (first run or resumed). */
export interface SponsoredRun {
  chain: ChainName;
  network: Network;
  transfer: SponsoredTransfer;
  sponsor: KeyHolder;
  /** The key of `transfer.from`. */
  owner: KeyHolder;
  /**
   * What was reserved for the job (the quote's `maxCost`): a run that finds the transfer would now cost
   * the sponsor more (fees rose since the quote) refuses rather than spend what is not reserved.
   */
  maxCost: bigint;
  journal: SponsorJournal;
}

/** A job refused or failed for a reason the caller is told (`failed - <reason>`). */
export class SponsorshipRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SponsorshipRefused';
  }
}

export interface FeeSponsor {
  /** The paymaster `type` values this chain takes, in its words first. */
  types(chain: ChainName): readonly string[];
  /**
   * The transfer a request asks for, checked (token decimals and contract read from the node); a bad
   * field throws the 422 naming it.
   */
  transfer(chain: ChainName, network: Network, request: PaymasterRequest): Promise<SponsoredTransfer>;
  /**
   * What the transfer needs and what the sponsor would pay, exact for this transfer; throws the 422 of
   * a transfer the pre-flight already knows will fail (a token balance too small), so that nothing is
   * sponsored for it.
   */
  quote(
    chain: ChainName,
    network: Network,
    transfer: SponsoredTransfer,
    sponsor: string,
  ): Promise<SponsorQuote>;
  /**
   * Pays what the transfer needs, sends it, and takes back what was only lent once it is mined. Resumes
   * from `journal.notes` after a restart without paying or sending twice. Answers the transfer's txid;
   * throws `SponsorshipRefused` (or an ApiError) with the reason it cannot complete, after giving back
   * what it lent.
   */
  run(run: SponsoredRun): Promise<{ txid: string }>;
  /** Gives back what an abandoned job still holds (a delegation), from the journal's notes. */
  unwind(run: SponsoredRun): Promise<void>;
  /** The most an activation can cost the sponsor (what is reserved for it); with `activate`. */
  activationCost?(chain: ChainName, network: Network): Promise<bigint>;
  /**
   * Makes `address` exist on chain, paid by the sponsor (Tron's `activated: true`), recording its cost
   * in the journal; answers the activation's txid, or null when the address existed already. Absent
   * where an address needs no activation.
   */
  activate?(
    chain: ChainName,
    network: Network,
    sponsor: KeyHolder,
    address: string,
    journal: SponsorJournal,
  ): Promise<string | null>;
  /** The decimals of the coin (`contract` null) or of a token, read from the chain; a bad contract is a 422. */
  decimals(chain: ChainName, network: Network, contract: string | null): Promise<number>;
  /** What `address` holds of the coin (`contract` null) or of a token, in base units, for sweeps. */
  holding(chain: ChainName, network: Network, address: string, contract: string | null): Promise<bigint>;
  /**
   * What a sweep moves from an address that holds `held` (the coin: less the fee it pays itself; a token:
   * all of it); null when the address cannot pay for its own move (the coin: its balance is no more than
   * the fee).
   */
  sweepUnits(
    chain: ChainName,
    network: Network,
    address: string,
    contract: string | null,
    held: bigint,
  ): Promise<bigint | null>;
}
