// Bitcoin devnet: an in-memory chain with Core's mempool rules and real signature checks, served as
// Esplora REST and Bitcoin Core JSON-RPC on one port. There is no bitcoind here; this is an emulator.
import type { AddressInfo } from 'node:net';
import { ChainSaver } from '../chain-saver.ts';
import { outputScriptOf } from './address.ts';
import {
  BitcoinChain,
  COINBASE_MATURITY,
  DEFAULT_MAX_FEERATE_SATS_PER_KVB,
  decodeTransaction,
} from './chain.ts';
import { RPC_TRANSACTION_ERROR, RpcError } from './errors.ts';
import { faucetKey, faucetTransaction } from './faucet.ts';
import { checkFeeEstimates, defaultFeeEstimates, type FeeEstimates } from './fees.ts';
import { type DevnetBitcoinNetwork, NETWORKS } from './networks.ts';
import { createBitcoinServer, RPC_PASSWORD, RPC_USER } from './server.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';

export type { DevnetBitcoinNetwork } from './networks.ts';

export interface BitcoinDevnetOptions {
  /** Default 'regtest': address/WIF encodings (bc/tb/bcrt) and the genesis hash reported. */
  network?: DevnetBitcoinNetwork;
  /** Mines a block on this timer; null (default): only on demand. */
  blockIntervalMs?: number | null;
  /** Default 0 (any free port); listens on 127.0.0.1. */
  port?: number;
  /** When given: loads the chain from it at start if present, saves on a timer and on close. */
  snapshotFile?: string;
  /** 0 (default): only on close. */
  saveIntervalMs?: number;
}

export interface BitcoinDevnet {
  /** Esplora base, e.g. http://127.0.0.1:PORT (GET /blocks/tip/height ...). */
  readonly url: string;
  /** Core JSON-RPC with basic auth: http://devnet:devnet@127.0.0.1:PORT/rpc */
  readonly coreUrl: string;
  readonly network: DevnetBitcoinNetwork;
  /** P2WPKH address holding the premined coins (every coinbase pays it). */
  readonly faucetAddress: string;
  /** Its key, 64 hex. */
  readonly faucetPrivateKey: string;
  /** A signed transaction from the faucet into the MEMPOOL; resolves to its txid. */
  faucet(address: string, sats: bigint): Promise<string>;
  /** Mines `blocks` (default 1), the mempool by feerate into the first; resolves to their hashes. */
  mine(blocks?: number): Promise<string[]>;
  /**
   * Drops the last `depth` blocks (their non-coinbase transactions return to the mempool when still
   * valid, or are forgotten with `dropTransactions`) and mines depth+1 new ones, empty: what was dropped
   * waits in the mempool for the next mine().
   */
  reorg(depth: number, options?: { dropTransactions?: boolean }): Promise<void>;
  /** What /fee-estimates and estimatesmartfee answer (sat/vB per confirmation target). */
  setFeeEstimates(estimates: Record<string, number>): void;
  height(): number;
  close(): Promise<void>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function startBitcoinDevnet(options: BitcoinDevnetOptions = {}): Promise<BitcoinDevnet> {
  const snapshotFile = options.snapshotFile;
  const saved = snapshotFile === undefined ? null : await readSnapshot(snapshotFile);
  const networkName = options.network ?? saved?.network ?? 'regtest';
  if (saved && saved.network !== networkName) {
    throw new Error(`the Bitcoin devnet saved in ${snapshotFile} is ${saved.network}, not ${networkName}`);
  }
  const params = NETWORKS[networkName];
  const key = faucetKey(params.encoding);
  if (saved && saved.faucet !== key.address) {
    throw new Error(`the Bitcoin devnet saved in ${snapshotFile} ran under another faucet key`);
  }
  const chain = new BitcoinChain(params, key.script);
  let feeEstimates: FeeEstimates = saved ? checkFeeEstimates(saved.feeEstimates) : defaultFeeEstimates();
  if (saved) chain.importState(saved.state);
  // A fresh chain: enough blocks that the first coinbase is spendable.
  else for (let i = 0; i <= COINBASE_MATURITY; i++) chain.mine(nowSeconds());

  // One change at a time, so a timed block never lands in the middle of a reorg.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => T): Promise<T> => {
    const run = queue.then(job, job);
    queue = run.catch(() => {});
    return run;
  };

  const submit = (hex: string, maxFeeRate = DEFAULT_MAX_FEERATE_SATS_PER_KVB) =>
    serial(() => {
      const tx = decodeTransaction(hex);
      const now = nowSeconds();
      const entry = chain.accept(tx, now, true);
      if (maxFeeRate > 0n && entry.fee * 1000n > maxFeeRate * BigInt(entry.vsize)) {
        throw new RpcError(
          RPC_TRANSACTION_ERROR,
          'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)',
        );
      }
      return chain.accept(tx, now).txid;
    });
  const mineNow = (n: number, payout?: Uint8Array) => {
    const hashes: string[] = [];
    for (let i = 0; i < n; i++) hashes.push(chain.mine(nowSeconds(), payout).hash);
    return hashes;
  };

  // A reorg rewrites blocks under the saved head: the next timed save must not wait for a busy block.
  let reorgs = 0;
  let reorgsSaved = 0;
  let saver: ChainSaver | null = null;
  const save =
    snapshotFile === undefined
      ? null
      : () =>
          writeSnapshot(snapshotFile, {
            network: networkName,
            faucet: key.address,
            feeEstimates,
            state: chain.exportState(),
          });
  if (save) {
    if (!saved) await save();
    saver = new ChainSaver(
      {
        head: async () => BigInt(chain.height),
        hasTransactions: async (after, upTo) => {
          if (reorgs !== reorgsSaved) {
            reorgsSaved = reorgs;
            return true;
          }
          return chain.blocks.slice(Number(after) + 1, Number(upTo) + 1).some((b) => b.txs.length > 1);
        },
        save,
      },
      { intervalMs: options.saveIntervalMs ?? 0 },
      BigInt(chain.height),
      (err) => console.error('bitcoin devnet: saving the chain failed', err),
    );
    saver.start();
  }

  const server = createBitcoinServer(
    {
      chain,
      feeEstimates: () => feeEstimates,
      submit,
      testAccept: (hex) => chain.accept(decodeTransaction(hex), nowSeconds(), true),
      generate: (blocks, script) => serial(() => mineNow(blocks, script)),
    },
    (err) => console.error('bitcoin devnet:', err),
  );
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const interval = options.blockIntervalMs ?? null;
  const timer = interval === null ? null : setInterval(() => void serial(() => mineNow(1)), interval);
  timer?.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    coreUrl: `http://${RPC_USER}:${RPC_PASSWORD}@127.0.0.1:${port}/rpc`,
    network: networkName,
    faucetAddress: key.address,
    faucetPrivateKey: Buffer.from(key.privateKey).toString('hex'),
    faucet: (address, sats) =>
      serial(() => {
        const script = outputScriptOf(address, params.encoding);
        if (!script) throw new Error(`${address} is not a ${networkName} address`);
        const spendable = [...chain.unspentOf(key.script)].filter(
          (c) =>
            !chain.spender(c.txid, c.vout) &&
            (!c.coinbase || chain.height + 1 - (c.height ?? 0) >= COINBASE_MATURITY),
        );
        const mempoolCoins = [...chain.mempoolCoins()].filter((c) =>
          Buffer.from(c.script).equals(Buffer.from(key.script)),
        );
        const tx = faucetTransaction(key, [...spendable, ...mempoolCoins], script, sats);
        return chain.accept(tx, nowSeconds()).txid;
      }),
    mine: (blocks = 1) => serial(() => mineNow(blocks)),
    reorg: (depth, options = {}) =>
      serial(() => {
        chain.disconnect(depth, nowSeconds(), options.dropTransactions === true);
        reorgs++;
        // The new branch must outgrow the old one; its blocks stay empty so the dropped transactions
        // are seen unconfirmed (a client can then watch them confirm again, or vanish).
        for (let i = 0; i <= depth; i++) chain.mineEmpty(nowSeconds());
      }),
    setFeeEstimates: (estimates) => {
      feeEstimates = checkFeeEstimates(estimates);
    },
    height: () => chain.height,
    close: async () => {
      if (timer) clearInterval(timer);
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      await serial(() => undefined);
      if (saver) {
        await saver.stop();
        // The mempool (and fee estimates) are saved too, even when no block came since the last save.
        await save?.();
      }
    },
  };
}
