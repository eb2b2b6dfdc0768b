// The devnets a test run starts once (test/global-setup/shared-devnets.ts), as test files see them: the
// node URLs, tokens and keys, and the devnets' own operations (faucets, mining, reorgs), which run in
// the process that owns the devnets and are called over HTTP (test/global-setup/devnet-control.ts).
import { inject } from 'vitest';
import type { EvmDevnet } from '../../devnets/evm/index.ts';
import type { SolanaDevnet, SolanaDevnetTokens } from '../../devnets/solana/index.ts';
import type { TronDevnet, TronDevnetTokens } from '../../devnets/tron/index.ts';
import type { Network } from '../../src/chains/types.ts';
import { decodeWire, encodeWire } from './devnet-wire.ts';
import { waitFor } from './processes.ts';
import type { SharedEvmChain } from './shared-evm-chains.ts';

export type { SharedEvmChain } from './shared-evm-chains.ts';

export interface SharedTronDevnetInfo {
  url: string;
  faucet: { address: string; privateKey: string };
  tokens: TronDevnetTokens;
}

export interface SharedSolanaDevnetInfo {
  url: string;
  wsUrl: string;
  faucet: { address: string; secretKey: string };
  tokens: SolanaDevnetTokens;
}

export interface SharedBitcoinDevnetInfo {
  /** Esplora REST. */
  url: string;
  /** Bitcoin Core JSON-RPC, with its credentials. */
  coreUrl: string;
}

export type SharedEvmDevnetInfo = Pick<
  EvmDevnet,
  'chain' | 'network' | 'chainId' | 'url' | 'wsUrl' | 'tokens' | 'faucetAccount' | 'accounts'
>;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's devnets are started and their operations served. */
    devnetControlUrl: string;
  }
}

/** A Tron devnet of the run: what a test file can do with it (the chain itself stays in its process). */
export type SharedTronDevnet = SharedTronDevnetInfo &
  Omit<TronDevnet, 'chain' | 'close' | keyof SharedTronDevnetInfo>;

/** The Solana devnet of the run; skip() and setPriorityFee() go over HTTP too, so they are promises here. */
export type SharedSolanaDevnet = SharedSolanaDevnetInfo &
  Omit<SolanaDevnet, 'chain' | 'close' | 'skip' | 'setPriorityFee' | keyof SharedSolanaDevnetInfo> & {
    skip(n: number): Promise<void>;
    setPriorityFee(microLamports: number | bigint, accounts?: readonly string[]): Promise<void>;
  };

/** An EVM devnet of the run; it is closed with the run, not by the test file. */
export type SharedEvmDevnet = Omit<EvmDevnet, 'close'> & { network: Network };

/** anvil answers a broadcast before its automine has made the block: wait for it, as a client would. */
export async function untilMined(devnet: Pick<SharedEvmDevnet, 'rpc'>, txid: string): Promise<void> {
  await waitFor(async () => (await devnet.rpc('eth_getTransactionReceipt', [txid])) ?? undefined, 10_000);
}

type Call = (operation: string, ...args: unknown[]) => Promise<unknown>;

function remote(devnet: string): Call {
  const controlUrl = inject('devnetControlUrl');
  return async (operation, ...args) => {
    const response = await fetch(`${controlUrl}/${devnet}/${operation}`, {
      method: 'POST',
      body: encodeWire(args),
    });
    const answer = decodeWire(await response.text());
    if (typeof answer !== 'object' || answer === null) throw new Error(`${devnet}.${operation}: no answer`);
    if (!response.ok || 'error' in answer) {
      throw new Error(`${devnet}.${operation} failed: ${'error' in answer ? answer.error : response.status}`);
    }
    return 'result' in answer ? answer.result : undefined;
  };
}

function isString(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`expected a string, got ${typeof value}`);
  return value;
}

function isHex(value: unknown): `0x${string}` {
  const text = isString(value);
  if (!text.startsWith('0x')) throw new Error(`expected 0x hex, got ${text}`);
  return `0x${text.slice(2)}`;
}

function isBigint(value: unknown): bigint {
  if (typeof value !== 'bigint') throw new Error(`expected a bigint, got ${typeof value}`);
  return value;
}

function isNumber(value: unknown): number {
  if (typeof value !== 'number') throw new Error(`expected a number, got ${typeof value}`);
  return value;
}

/** The Tron devnet of this run (mainnet: blocks only when a test mines them, solidified at once). */
export async function sharedTronDevnet(): Promise<SharedTronDevnet> {
  const call = remote('tron');
  // Built by test/global-setup/shared-devnets.ts as this type.
  const info = (await call('info')) as SharedTronDevnetInfo;
  return {
    ...info,
    mine: async (n) => isNumber(await call('mine', n)),
    reorg: async (depth) => {
      await call('reorg', depth);
    },
    faucetTrx: async (address, sun) => isString(await call('faucetTrx', address, sun)),
    faucetTrc20: async (contract, to, units) => isString(await call('faucetTrc20', contract, to, units)),
    faucetTrc721: async (contract, to) => isBigint(await call('faucetTrc721', contract, to)),
    faucetTrc10: async (assetId, to, units) => isString(await call('faucetTrc10', assetId, to, units)),
  };
}

/** The Solana devnet of this run (mainnet genesis hash; slots move only per transaction and advance()). */
export async function sharedSolanaDevnet(): Promise<SharedSolanaDevnet> {
  const call = remote('solana');
  // Built by test/global-setup/shared-devnets.ts as this type.
  const info = (await call('info')) as SharedSolanaDevnetInfo;
  return {
    ...info,
    airdrop: async (address, lamports) => isString(await call('airdrop', address, lamports)),
    faucetSpl: async (mint, owner, units) => isString(await call('faucetSpl', mint, owner, units)),
    advance: async (n) => isBigint(await call('advance', n)),
    skip: async (n) => {
      await call('skip', n);
    },
    setPriorityFee: async (microLamports, accounts) => {
      await call('setPriorityFee', BigInt(microLamports), accounts);
    },
    reorg: async (depth) => {
      await call('reorg', depth);
    },
  };
}

/** The Bitcoin devnet of the run, as a test file drives it (all over HTTP). */
export interface SharedBitcoinDevnet extends SharedBitcoinDevnetInfo {
  /** Pays `sats` from the devnet's coins into the mempool; its txid. */
  faucet(address: string, sats: bigint): Promise<string>;
  mine(blocks?: number): Promise<string[]>;
  /** Replaces the newest blocks with empty ones; their transactions wait in the mempool, or are dropped. */
  reorg(depth: number, dropTransactions?: boolean): Promise<void>;
  setFeeEstimates(estimates: Record<string, number>): Promise<void>;
}

/** The Bitcoin devnet of this run (mainnet encodings and genesis; blocks only when mined). */
export async function sharedBitcoinDevnet(): Promise<SharedBitcoinDevnet> {
  const call = remote('bitcoin');
  // Built by test/global-setup/shared-devnets.ts as this type.
  const info = (await call('info')) as SharedBitcoinDevnetInfo;
  return {
    ...info,
    faucet: async (address, sats) => isString(await call('faucet', address, sats)),
    mine: async (blocks) => {
      const hashes = await call('mine', blocks);
      if (!Array.isArray(hashes)) throw new Error('mine: expected the block hashes');
      return hashes.map(isString);
    },
    reorg: async (depth, dropTransactions = false) => {
      await call('reorg', depth, dropTransactions);
    },
    setFeeEstimates: async (estimates) => {
      await call('setFeeEstimates', estimates);
    },
  };
}

/** The anvil of this run for `chain` (mainnet chain id, a block per transaction). */
export async function sharedEvmDevnet(chain: SharedEvmChain): Promise<SharedEvmDevnet> {
  const call = remote(chain);
  // Built by test/global-setup/shared-devnets.ts as this type.
  const info = (await call('info')) as SharedEvmDevnetInfo;
  const hex = async (work: Promise<unknown>) => isHex(await work);
  return {
    ...info,
    rpc: async <T>(method: string, params: unknown[] = []) => (await call('rpc', method, params)) as T,
    faucetNative: (address, wei) => hex(call('faucetNative', address, wei)),
    faucetErc20: (contract, to, units) => hex(call('faucetErc20', contract, to, units)),
    faucetErc721: async (contract, to) => isBigint(await call('faucetErc721', contract, to)),
    mine: async (n) => isBigint(await call('mine', n)),
    reorg: async (depth) => {
      await call('reorg', depth);
    },
  };
}
