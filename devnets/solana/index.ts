// Solana devnet: litesvm (a real SVM with SPL Token, Token-2022 and ATA) behind the node's JSON-RPC 2.0
// over HTTP.
import type { AddressInfo } from 'node:net';
import type { Instruction, KeyPairSigner } from '@solana/kit';
import { ChainSaver } from '../chain-saver.ts';
import { SolanaChain } from './chain.ts';
import { toBase58 } from './codec.ts';
import { RpcError } from './errors.ts';
import {
  createMintIxs,
  devnetSecretKey,
  faucetSigner,
  mintToOwnerIxs,
  secretKeyBase58,
  signedWire,
  transferIx,
} from './faucet.ts';
import { encodeMetadata, METADATA_PROGRAM, METADATA_SIZE, metadataAddress } from './metadata.ts';
import type { MethodContext } from './rpc/methods.ts';
import { attachPubSub } from './rpc/pubsub.ts';
import { createRpcServer } from './rpc/server.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';
import { MINT_SIZE, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './token.ts';

export { REORG_WINDOW } from './chain.ts';
export { METADATA_PROGRAM, metadataAddress } from './metadata.ts';
export { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './token.ts';

export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
const FAUCET_LAMPORTS = 1_000_000_000n * 1_000_000_000n;

// The demo mints: fixed keys (same addresses on every start), one per token program, with metadata.
const DEMO_MINTS = [
  {
    symbol: 'USDT',
    label: 'switchyard.solana.devnet.usdt',
    program: TOKEN_PROGRAM,
    name: 'Tether USD',
  },
  {
    symbol: 'USDT22',
    label: 'switchyard.solana.devnet.usdt22',
    program: TOKEN_2022_PROGRAM,
    name: 'Tether USD (Token-2022)',
  },
] as const;

export interface SolanaDevnetOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Slot length; null: slots advance only per transaction and on advance(). Default 400. */
  slotIntervalMs?: number | null;
  /** Every Nth slot is skipped (holds no block). Default: none. */
  skipEvery?: number | null;
  /** What getGenesisHash reports. Default: the public devnet's. */
  genesisHash?: string;
  /**
   * Keeps the chain in this file: a devnet started on a saved one carries on from it (slots, blocks,
   * transactions, accounts, tokens). Saved on close() and, with saveIntervalMs, on a timer.
   */
  snapshotFile?: string;
  /** How often a snapshotFile devnet looks for new transactions to save; 0 or unset: only on close(). */
  saveIntervalMs?: number;
  /** What getRecentPrioritizationFees reports per block, in micro-lamports per compute unit. Default 0. */
  priorityFeeMicroLamports?: number | bigint;
}

export interface SolanaDevnetTokens {
  /** USDT: classic SPL Token; USDT22: Token-2022. Both 6 decimals, the faucet their mint authority. */
  spl: { USDT: string; USDT22: string } & Record<string, string>;
}

export interface SolanaDevnet {
  url: string;
  /** PubSub (signatureSubscribe, slotSubscribe) on the same port: web3.js's `wsEndpoint`. */
  wsUrl: string;
  /** Faucet key (devnet only); secretKey is the 64-byte seed||pubkey in base58, as wallets export it. */
  faucet: { address: string; secretKey: string };
  tokens: SolanaDevnetTokens;
  chain: SolanaChain;
  /** Moves `n` slots (default 1); resolves to the new slot. */
  advance(n?: number): Promise<bigint>;
  /** Marks the next `n` slots skipped. */
  skip(n: number): void;
  /**
   * Replaces the newest `depth` blocks (at most REORG_WINDOW) with as many empty ones at new slots; their
   * transactions and the pending ones are dropped and the accounts they wrote restored.
   */
  reorg(depth: number): Promise<void>;
  airdrop(address: string, lamports: bigint): Promise<string>;
  /**
   * Creates the owner's associated token account when missing and mints `units` to it, under the mint's
   * token program (SPL Token or Token-2022).
   */
  faucetSpl(mint: string, owner: string, units: bigint): Promise<string>;
  /**
   * Makes getRecentPrioritizationFees report `microLamports` per block (0: none, as by default); with
   * `accounts`, only for requests naming one of them (others see 0), so a test on a shared devnet can
   * price its own accounts alone.
   */
  setPriorityFee(microLamports: number | bigint, accounts?: readonly string[]): void;
  close(): Promise<void>;
}

export async function startSolanaDevnet(options: SolanaDevnetOptions = {}): Promise<SolanaDevnet> {
  const interval = options.slotIntervalMs === undefined ? 400 : options.slotIntervalMs;
  const secretKey = devnetSecretKey('switchyard.solana.devnet.faucet');
  const faucet: KeyPairSigner = await faucetSigner(secretKey);
  const snapshotFile = options.snapshotFile;
  const saved = snapshotFile === undefined ? null : await readSnapshot(snapshotFile);
  if (saved && saved.faucet !== faucet.address) {
    throw new Error(`the Solana devnet saved in ${snapshotFile} ran under another faucet key`);
  }
  const chain = new SolanaChain({
    skipEvery: options.skipEvery ?? null,
    ...(saved ? { state: saved.state } : {}),
  });
  if (!saved) chain.fund(faucet.address, FAUCET_LAMPORTS);

  // One transaction at a time: signing is async, execution and block production are not.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const run = queue.then(job, job);
    queue = run.catch(() => {});
    return run;
  };

  const submitNow = (bytes: Uint8Array, skipPreflight: boolean): string => {
    const { wire, kit } = chain.decode(bytes);
    const signature = toBase58(wire.signatures[0] ?? new Uint8Array(64));
    if (!chain.verifySignatures(wire))
      throw new RpcError(-32003, 'Transaction signature verification failure');
    if (!skipPreflight) {
      const sim = chain.simulate(wire, kit);
      if (sim.err) {
        throw new RpcError(-32002, `Transaction simulation failed: ${sim.err.text}`, {
          accounts: null,
          err: sim.err.json,
          logs: sim.logs,
          returnData: null,
          unitsConsumed: sim.unitsConsumed,
        });
      }
    }
    chain.execute(wire, kit);
    if (interval === null && chain.hasPending()) chain.produceBlock();
    return signature;
  };

  const submit: MethodContext['submit'] = (bytes, opts) =>
    serial(async () => submitNow(bytes, opts.skipPreflight));

  const sendFromFaucet = (instructions: () => Promise<Instruction[]>) =>
    serial(async () => {
      const ixs = await instructions();
      let bytes = await signedWire(faucet, chain.head.blockhash, ixs);
      // The same request within one slot signs the same message: the chain would refuse the second as
      // already processed. A new block gives it a fresh blockhash, so both land.
      if (chain.txs.has(toBase58(chain.decode(bytes).wire.signatures[0] ?? new Uint8Array(64)))) {
        chain.produceBlock();
        bytes = await signedWire(faucet, chain.head.blockhash, ixs);
      }
      return submitNow(bytes, false);
    });

  const airdrop = (address: string, lamports: bigint) =>
    sendFromFaucet(async () => [transferIx(faucet, address, lamports)]);

  const spl: Record<string, string> = {};
  let created = false;
  for (const demo of DEMO_MINTS) {
    const mint = await faucetSigner(devnetSecretKey(demo.label));
    spl[demo.symbol] = mint.address;
    // A saved chain already holds its mints (and their metadata): creating them again would fail.
    if (chain.account(mint.address)) continue;
    const rent = chain.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE));
    await sendFromFaucet(async () => createMintIxs(faucet, mint, rent, 6, demo.program));
    chain.setAccount(await metadataAddress(mint.address), {
      lamports: chain.svm.minimumBalanceForRentExemption(BigInt(METADATA_SIZE)),
      owner: METADATA_PROGRAM,
      executable: false,
      data: encodeMetadata({
        updateAuthority: faucet.address,
        mint: mint.address,
        name: demo.name,
        symbol: demo.symbol,
      }),
    });
    created = true;
  }
  if (created && interval !== null) chain.produceBlock();
  const tokens = { spl: spl as SolanaDevnetTokens['spl'] };

  // The mint's owner says which token program its accounts and instructions go to.
  const tokenProgramOf = (mint: string): string => {
    const owner = chain.account(mint)?.programAddress;
    if (owner !== TOKEN_PROGRAM && owner !== TOKEN_2022_PROGRAM)
      throw new Error(`${mint} is not a token mint`);
    return owner;
  };

  let saver: ChainSaver | null = null;
  if (snapshotFile !== undefined) {
    const save = () =>
      writeSnapshot(snapshotFile, { faucet: faucet.address, tokens: spl, state: chain.exportState() });
    if (!saved) await save();
    saver = new ChainSaver(
      {
        head: async () => chain.slot,
        hasTransactions: async (after, upTo) => chain.changedIn(after, upTo),
        save,
      },
      { intervalMs: options.saveIntervalMs ?? 0 },
      chain.slot,
      (err) => console.error('solana devnet: saving the chain failed', err),
    );
    saver.start();
  }

  const ctx: MethodContext = {
    chain,
    genesisHash: options.genesisHash ?? DEVNET_GENESIS_HASH,
    submit,
    airdrop,
    priorityFee: { microLamports: microLamportsOf(options.priorityFeeMicroLamports ?? 0), accounts: null },
  };
  const server = createRpcServer(ctx, (err) => console.error('solana devnet:', err));
  const closePubSub = attachPubSub(server, chain);
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const hostPort = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const timer = interval === null ? null : setInterval(() => chain.advanceSlot(), interval);
  timer?.unref();

  return {
    url: `http://${hostPort}`,
    wsUrl: `ws://${hostPort}`,
    faucet: { address: faucet.address, secretKey: secretKeyBase58(secretKey) },
    tokens,
    chain,
    advance: (n = 1) =>
      serial(async () => {
        for (let i = 0; i < n; i++) chain.advanceSlot();
        return chain.slot;
      }),
    skip: (n) => chain.skip(n),
    reorg: (depth) =>
      serial(async () => {
        chain.reorg(depth);
      }),
    airdrop,
    faucetSpl: (mint, owner, units) =>
      sendFromFaucet(() => mintToOwnerIxs(faucet, mint, owner, units, tokenProgramOf(mint))),
    setPriorityFee: (microLamports, accounts) => {
      ctx.priorityFee = {
        microLamports: microLamportsOf(microLamports),
        accounts: accounts === undefined ? null : new Set(accounts),
      };
    },
    close: async () => {
      if (timer) clearInterval(timer);
      closePubSub();
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      // What was sent just before the stop lands, as it would have a moment later, then is saved. (A timed
      // save may still hold pending transactions: they land in the first block after a restart.)
      await serial(async () => {
        if (saver && chain.hasPending()) chain.produceBlock();
      });
      await saver?.stop();
    },
  };
}

/** A priority fee as the node reports it: a u64 of micro-lamports per compute unit. */
function microLamportsOf(value: number | bigint): bigint {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new Error(`a priority fee is a whole number of micro-lamports, not ${value}`);
  }
  const fee = BigInt(value);
  if (fee < 0n || fee > 18446744073709551615n) throw new Error(`a priority fee is a u64, not ${fee}`);
  return fee;
}
