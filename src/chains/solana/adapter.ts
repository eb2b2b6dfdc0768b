/**
 * SolanaAdapter: the one object routes and services use for Solana. Reads and sends go through
 * @solana/kit's typed RPC on the shared NodeClient (timeouts, retries, failover); the watcher reads
 * blocks as the node writes them (block-transfers.ts). Reads and sends use `confirmed` commitment.
 */
import type { Base64EncodedWireTransaction, Blockhash, Commitment, Signature } from '@solana/kit';
import type { NodeEndpointConfig } from '../../config.ts';
import { type AdapterConnection, adapterNodeClient, connectionOf } from '../adapter-connection.ts';
import type { AdapterContext, AdapterFactory } from '../adapter-context.ts';
import type { ChainAdapter } from '../chain-adapter.ts';
import type { BlockFollower, HeightReading } from '../follower.ts';
import type { NodeClient } from '../node-client.ts';
import type { Network } from '../types.ts';
import { solanaBlockOf } from './block-transfers.ts';
import { fromBase64 } from './codec.ts';
import { SolanaSendRefused } from './errors.ts';
import { SOLANA_FINALITY } from './finality.ts';
import { isSolanaAddress } from './keys.ts';
import { type SolanaKit, solanaKit } from './kit.ts';
import { SolanaRpc, SolanaRpcError } from './rpc.ts';
import { solanaSlotNotifications } from './slot-notifications.ts';

/** The public clusters; the gateway's testnet is Solana's devnet. */
export const SOLANA_DEFAULT_ENDPOINTS: Record<Network, NodeEndpointConfig[]> = {
  mainnet: [{ url: 'https://api.mainnet-beta.solana.com', headers: {} }],
  testnet: [{ url: 'https://api.devnet.solana.com', headers: {} }],
};

export const LAMPORTS_DECIMALS = 9;

/** Reads and sends wait for a supermajority vote; `finalized` only where a caller asks for it. */
const COMMITMENT: Commitment = 'confirmed';

/** Node errors that say a slot holds no block and never will (skipped, or pruned from storage). */
const SKIPPED_SLOT = new Set([-32007, -32009]);
/** Block not available yet (the node has not caught up with that slot). */
const NOT_AVAILABLE = -32004;

/** An account as the gateway reads it. */
export interface SolanaAccount {
  lamports: bigint;
  owner: string;
  data: Uint8Array;
  executable: boolean;
}

export interface SolanaAdapterOptions extends AdapterConnection {
  /** The node's PubSub WebSocket endpoint: the watcher hears of new slots by `slotSubscribe`. */
  wsUrl?: string;
}

export class SolanaAdapter implements ChainAdapter {
  readonly chain = 'solana' as const;
  readonly network: Network;
  readonly nativeSymbol = 'SOL';
  readonly nativeDecimals = LAMPORTS_DECIMALS;
  readonly follower: BlockFollower;
  readonly rpc: SolanaRpc;
  readonly #client: NodeClient;

  constructor(options: SolanaAdapterOptions) {
    this.network = options.network;
    this.#client = adapterNodeClient('solana', options);
    this.rpc = new SolanaRpc(this.#client);
    this.follower = {
      finality: SOLANA_FINALITY[options.network],
      head: () => this.getBlockNumber(),
      read: (slot) => this.#readSlot(slot),
      ...(options.wsUrl === undefined ? {} : { heads: solanaSlotNotifications(options.wsUrl) }),
    };
  }

  isAddress(value: string): boolean {
    return isSolanaAddress(value);
  }

  /** The newest confirmed slot. */
  async getBlockNumber(): Promise<bigint> {
    return (await this.rpc.kit()).getSlot({ commitment: COMMITMENT }).send();
  }

  async getBalance(owner: string, commitment: Commitment = COMMITMENT): Promise<bigint> {
    const { address } = await solanaKit();
    const { value } = await (await this.rpc.kit()).getBalance(address(owner), { commitment }).send();
    return value;
  }

  /** An account's lamports, owner program and data; null when it does not exist. */
  async getAccount(account: string, commitment: Commitment = COMMITMENT): Promise<SolanaAccount | null> {
    const { address } = await solanaKit();
    const { value } = await (await this.rpc.kit())
      .getAccountInfo(address(account), { commitment, encoding: 'base64' })
      .send();
    if (value === null) return null;
    return {
      lamports: value.lamports,
      owner: value.owner,
      data: fromBase64(value.data[0]) ?? new Uint8Array(),
      executable: value.executable,
    };
  }

  /** The lamports an account of `bytes` data needs to be exempt from rent. */
  async rentExemptMinimum(bytes: number): Promise<bigint> {
    const rpc = await this.rpc.kit();
    return rpc.getMinimumBalanceForRentExemption(BigInt(bytes), { commitment: COMMITMENT }).send();
  }

  async latestBlockhash(): Promise<Readonly<{ blockhash: Blockhash; lastValidBlockHeight: bigint }>> {
    const { value } = await (await this.rpc.kit()).getLatestBlockhash({ commitment: COMMITMENT }).send();
    return value;
  }

  /** The prioritization fees (micro-lamports per compute unit) paid lately by transactions writing `accounts`. */
  async recentPriorityFees(accounts: string[]): Promise<bigint[]> {
    const { address } = await solanaKit();
    const rpc = await this.rpc.kit();
    const fees = await rpc.getRecentPrioritizationFees(accounts.map((a) => address(a))).send();
    return fees.map((fee) => fee.prioritizationFee);
  }

  /** Compute units a transaction would use, simulated without its signatures; null when it would fail. */
  async computeUnits(wire: Base64EncodedWireTransaction): Promise<{ units: bigint | null; error: unknown }> {
    const { value } = await (await this.rpc.kit())
      .simulateTransaction(wire, { encoding: 'base64', sigVerify: false, commitment: COMMITMENT })
      .send();
    return { units: value.err === null ? (value.unitsConsumed ?? null) : null, error: value.err };
  }

  /**
   * Sends a signed transaction (preflight at `confirmed`); answers its signature. Sent as JSON-RPC
   * itself, so a refusal keeps the node's own words (SolanaRpcError), which the caller is shown.
   */
  async sendTransaction(wire: Base64EncodedWireTransaction): Promise<string> {
    let signature: unknown;
    try {
      signature = await this.rpc.raw('sendTransaction', [
        wire,
        { encoding: 'base64', preflightCommitment: COMMITMENT, maxRetries: 5 },
      ]);
    } catch (error) {
      if (error instanceof SolanaRpcError) throw new SolanaSendRefused(error.message);
      throw error;
    }
    if (typeof signature !== 'string') throw new SolanaSendRefused('the node answered no signature');
    return signature;
  }

  /** A transaction as the node writes it (json encoding, v0 included); null when unknown. */
  getTransaction(signature: string, commitment: Commitment = COMMITMENT): Promise<unknown> {
    return this.rpc.raw('getTransaction', [
      signature,
      { encoding: 'json', commitment, maxSupportedTransactionVersion: 0 },
    ]);
  }

  /** The status of a transaction; null when the node does not know it. */
  async signatureStatus(signature: string) {
    const kit = await solanaKit();
    const { value } = await (await this.rpc.kit())
      .getSignatureStatuses([signatureOf(kit, signature)], { searchTransactionHistory: true })
      .send();
    return value[0] ?? null;
  }

  /** How far each of these transactions got (failed ones included); null for one in no block yet. */
  async confirmations(signatures: string[]): Promise<(Commitment | null)[]> {
    const kit = await solanaKit();
    const rpc = await this.rpc.kit();
    const { value } = await rpc.getSignatureStatuses(signatures.map((text) => signatureOf(kit, text))).send();
    return signatures.map((_, i) => value[i]?.confirmationStatus ?? null);
  }

  /** The height of the newest `confirmed` block, which blockhash lifetimes count in. */
  async blockHeight(): Promise<bigint> {
    return (await this.rpc.kit()).getBlockHeight({ commitment: COMMITMENT }).send();
  }

  /**
   * A block with its transactions' signatures (`signatures`), or with the transactions whole in json
   * (`full`, what the watcher decodes); `skipped` for a slot that holds none, null for one the node does
   * not have (yet).
   */
  async getBlock(
    slot: bigint,
    details: 'signatures' | 'full' = 'signatures',
  ): Promise<unknown | 'skipped' | null> {
    try {
      return await this.rpc.raw('getBlock', [
        slot,
        {
          commitment: COMMITMENT,
          encoding: 'json',
          transactionDetails: details,
          rewards: false,
          maxSupportedTransactionVersion: 0,
        },
      ]);
    } catch (error) {
      if (error instanceof SolanaRpcError && SKIPPED_SLOT.has(error.code)) return 'skipped';
      if (error instanceof SolanaRpcError && error.code === NOT_AVAILABLE) return null;
      throw error;
    }
  }

  disableEndpoint(endpoint: string): number {
    return this.#client.disableEndpoint(endpoint);
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  /** One slot for the watcher: its block with the transfers in it, skipped, or not reached yet. */
  async #readSlot(slot: bigint): Promise<HeightReading> {
    if (slot > (await this.getBlockNumber())) return { kind: 'not-yet' };
    const block = await this.getBlock(slot, 'full');
    if (block === 'skipped') return { kind: 'skipped' };
    if (block === null) return { kind: 'not-yet' };
    return { kind: 'block', block: solanaBlockOf(slot, block, 'solana', this.network) };
  }
}

/** A signature as kit types it; the route's pattern already let only base58 of that length through. */
function signatureOf(kit: SolanaKit, text: string): Signature {
  kit.assertIsSignature(text);
  return text;
}

export const solanaAdapterFactory: AdapterFactory = (context: AdapterContext) =>
  new SolanaAdapter({ ...connectionOf(context), wsUrl: context.wsUrl });
