// Tron devnet: an in-memory chain behind the java-tron full-node HTTP API subset.
import type { AddressInfo } from 'node:net';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ChainSaver } from '../chain-saver.ts';
import { addressFromPrivateKey, hexAddressToBase58 } from './address.ts';
import { TronChain } from './chain.ts';
import { Faucet } from './faucet.ts';
import { buildGenesis, type GenesisOptions } from './genesis.ts';
import { nodeRoutes } from './http/routes.ts';
import { createNodeServer } from './http/server.ts';
import { readSnapshot, takeSnapshot, writeSnapshot } from './snapshot.ts';

export type { GenesisOptions } from './genesis.ts';
export type { ChainParams } from './params.ts';

export interface TronDevnetOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /**
   * Block production interval, at the start of each slot (the multiples of it on the wall clock); null
   * produces blocks only through mine(). Default 3000.
   */
  blockIntervalMs?: number | null;
  /** How many blocks the solidified head lags the head (java-tron mainnet: about 19). Default 19. */
  solidifyLag?: number;
  genesis?: GenesisOptions;
  /**
   * The network id `/wallet/getnodeinfo` reports (java-tron's node.p2p.version: mainnet 11111, Nile
   * 201910292), so a client can check which network the devnet stands for. Unset, it names none.
   */
  p2pVersion?: number;
  /**
   * Keeps the chain in this file: a devnet started on a saved chain carries on from it (blocks,
   * transactions, balances, contracts and token addresses); the chain is saved on a timer and on close().
   */
  snapshotFile?: string;
  /** How often a snapshotFile devnet looks for new transactions to save. Default 5000. */
  saveIntervalMs?: number;
}

export interface TronDevnetTokens {
  trc20: { USDT: string } & Record<string, string>;
  trc721: { NFT: string } & Record<string, string>;
  /** TRC10 token name -> token id. */
  trc10: Record<string, string>;
}

export interface TronDevnet {
  /** Base URL for TronWeb's fullHost or plain /wallet/* calls. */
  url: string;
  /** Genesis faucet key (devnet only): owner of the tokens, issuer of the TRC10 asset. */
  faucet: { address: string; privateKey: string };
  tokens: TronDevnetTokens;
  /** The chain itself, for tests that need to look inside. */
  chain: TronChain;
  /** Produces `n` blocks now; resolves to the new head block number. */
  mine(n?: number): Promise<number>;
  /** Replaces the newest `depth` blocks with empty ones (at most 32); their transactions are dropped. */
  reorg(depth: number): Promise<void>;
  faucetTrx(address: string, sun: bigint): Promise<string>;
  faucetTrc20(contract: string, to: string, units: bigint): Promise<string>;
  faucetTrc721(contract: string, to: string): Promise<bigint>;
  faucetTrc10(assetId: string, to: string, units: bigint): Promise<string>;
  close(): Promise<void>;
}

export async function startTronDevnet(options: TronDevnetOptions = {}): Promise<TronDevnet> {
  const genesis = await buildGenesis(options.genesis);
  const keys = { faucet: genesis.faucet, witness: addressFromPrivateKey(genesis.witnessKey) };
  const saved = options.snapshotFile === undefined ? null : await readSnapshot(options.snapshotFile);
  if (saved && (saved.faucet !== keys.faucet || saved.witness !== keys.witness)) {
    throw new Error(`the Tron devnet saved in ${options.snapshotFile} ran under other keys`);
  }
  // A saved chain keeps its tokens where they were, even if the contracts' sources changed since.
  const tokens = saved?.tokens ?? genesis.tokens;
  const interval = options.blockIntervalMs === undefined ? 3000 : options.blockIntervalMs;
  const chain = new TronChain({
    params: genesis.params,
    world: genesis.world,
    witnessKey: genesis.witnessKey,
    solidifyLag: options.solidifyLag ?? 19,
    time: interval === null ? 'virtual' : 'wall',
    ...(saved ? { history: saved.history } : {}),
  });
  // Genesis carries timestamp 0 like mainnet; block 1 brings the clock to now.
  if (!saved) await chain.mine(1);
  const faucet = new Faucet(chain, genesis.faucetKey, genesis.faucet);

  const snapshotFile = options.snapshotFile;
  let saver: ChainSaver | null = null;
  if (snapshotFile !== undefined) {
    const save = () => writeSnapshot(snapshotFile, takeSnapshot(chain, keys, tokens));
    if (!saved) await save();
    saver = new ChainSaver(
      {
        head: async () => chain.head.header.number,
        hasTransactions: async (after, upTo) =>
          chain.blocksInRange(after + 1n, upTo + 1n).some((block) => block.transactions.length > 0),
        save,
      },
      { intervalMs: options.saveIntervalMs ?? 5000 },
      chain.head.header.number,
      (err) => console.error('[tron-devnet] saving the chain failed', err),
    );
    saver.start();
  }

  const server = createNodeServer(nodeRoutes(chain, options.p2pVersion), (err) =>
    console.error('[tron-devnet]', err),
  );
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  // Blocks come at the start of each slot (the multiples of the interval on the wall clock), as a super
  // representative makes its block at its slot's time: a block's timestamp is then when it appeared.
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const produceAt = (slot: number, every: number) => {
    if (closed) return;
    timer = setTimeout(
      () => {
        chain.mine(1).catch((err: unknown) => console.error('[tron-devnet] block production failed', err));
        // A slot passed while this process was busy gets no block, as on the chain.
        let next = slot + every;
        while (next <= Date.now()) next += every;
        produceAt(next, every);
      },
      Math.max(0, slot - Date.now()),
    );
    timer.unref();
  };
  if (interval !== null) produceAt(Math.ceil((Date.now() + 1) / interval) * interval, interval);

  const b58 = hexAddressToBase58;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    faucet: { address: b58(genesis.faucet), privateKey: bytesToHex(genesis.faucetKey) },
    tokens: {
      trc20: { USDT: b58(tokens.trc20['USDT'] as string) },
      trc721: { NFT: b58(tokens.trc721['NFT'] as string) },
      trc10: { ...tokens.trc10 },
    },
    chain,
    mine: async (n = 1) => {
      await chain.mine(n);
      return Number(chain.head.header.number);
    },
    reorg: async (depth) => {
      await chain.reorg(depth);
    },
    faucetTrx: (address, sun) => faucet.trx(address, sun),
    faucetTrc20: (contract, to, units) => faucet.trc20(contract, to, units),
    faucetTrc721: (contract, to) => faucet.trc721(contract, to),
    faucetTrc10: (assetId, to, units) => faucet.trc10(assetId, to, units),
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // What was sent just before the stop is mined, as it would have been a moment later, then saved.
      if (saver && interval !== null && chain.pendingIds().length > 0) await chain.mine(1);
      await saver?.stop();
    },
  };
}
