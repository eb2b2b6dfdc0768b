// Solana devnet: litesvm (a real SVM with SPL Token and ATA) behind the node's JSON-RPC 2.0 over HTTP.
import type { AddressInfo } from 'node:net';
import type { Instruction, KeyPairSigner } from '@solana/kit';
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
import type { MethodContext } from './rpc/methods.ts';
import { attachPubSub } from './rpc/pubsub.ts';
import { createRpcServer } from './rpc/server.ts';

export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';
const FAUCET_LAMPORTS = 1_000_000_000n * 1_000_000_000n;

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
}

export interface SolanaDevnet {
  url: string;
  /** PubSub (signatureSubscribe, slotSubscribe) on the same port: web3.js's `wsEndpoint`. */
  wsUrl: string;
  /** Faucet key (devnet only); secretKey is the 64-byte seed||pubkey in base58, as wallets export it. */
  faucet: { address: string; secretKey: string };
  tokens: { spl: { USDT: string } & Record<string, string> };
  chain: SolanaChain;
  /** Moves `n` slots (default 1); resolves to the new slot. */
  advance(n?: number): Promise<bigint>;
  /** Marks the next `n` slots skipped. */
  skip(n: number): void;
  airdrop(address: string, lamports: bigint): Promise<string>;
  /** Creates the owner's associated token account when missing and mints `units` to it. */
  faucetSpl(mint: string, owner: string, units: bigint): Promise<string>;
  close(): Promise<void>;
}

export async function startSolanaDevnet(options: SolanaDevnetOptions = {}): Promise<SolanaDevnet> {
  const interval = options.slotIntervalMs === undefined ? 400 : options.slotIntervalMs;
  const chain = new SolanaChain({ skipEvery: options.skipEvery ?? null });
  const secretKey = devnetSecretKey('switchyard.solana.devnet.faucet');
  const faucet: KeyPairSigner = await faucetSigner(secretKey);
  chain.fund(faucet.address, FAUCET_LAMPORTS);

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
      const bytes = await signedWire(faucet, chain.head.blockhash, ixs);
      return submitNow(bytes, false);
    });

  const airdrop = (address: string, lamports: bigint) =>
    sendFromFaucet(async () => [transferIx(faucet, address, lamports)]);

  // A fixed mint key, so the USDT address is the same on every start.
  const mintSigner = await faucetSigner(devnetSecretKey('switchyard.solana.devnet.usdt'));
  const rent = chain.svm.minimumBalanceForRentExemption(82n);
  await sendFromFaucet(async () => createMintIxs(faucet, mintSigner, rent, 6));
  if (interval !== null) chain.produceBlock();

  const ctx: MethodContext = {
    chain,
    genesisHash: options.genesisHash ?? DEVNET_GENESIS_HASH,
    submit,
    airdrop,
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
    tokens: { spl: { USDT: mintSigner.address } },
    chain,
    advance: (n = 1) =>
      serial(async () => {
        for (let i = 0; i < n; i++) chain.advanceSlot();
        return chain.slot;
      }),
    skip: (n) => chain.skip(n),
    airdrop,
    faucetSpl: (mint, owner, units) => sendFromFaucet(() => mintToOwnerIxs(faucet, mint, owner, units)),
    close: async () => {
      if (timer) clearInterval(timer);
      closePubSub();
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
