// TON devnet: the TON emulator (@ton/sandbox) behind the toncenter v3 REST subset a gateway reads and
// sends through, with masterchain blocks closed on a timer, a V5R1 faucet and a demo USDT jetton.
import type { AddressInfo } from 'node:net';
import { Address, internal, type Message, type MessageRelaxed } from '@ton/core';
import { ChainSaver } from '../chain-saver.ts';
import { apiRoutes } from './api/routes.ts';
import { createApiServer } from './api/server.ts';
import { TonChain } from './chain.ts';
import { DevnetBlockchain } from './emulator.ts';
import { devnetSeed, Faucet } from './faucet.ts';
import { deployMinter, jettonCode, mintMessage, USDT_METADATA } from './jetton.ts';
import { normalizedExternalHash } from './messages.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';

export const MAINNET_GLOBAL_ID = -239;
export const TESTNET_GLOBAL_ID = -3;

export interface TonDevnetOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** ms between masterchain blocks; null: blocks only on advance() (and for the faucet's own sends). Default 1000. */
  blockIntervalMs?: number | null;
  /** -239 (mainnet, default) or -3 (testnet): what blocks report as global_id and V5R1 wallet ids use. */
  globalId?: number;
  /**
   * As a liteserver does, POST /message runs the message on the current state first and answers 500 with
   * the exit code (`exitcode=133`) when the account would refuse it. Default false: every well-formed
   * message is queued, and a refused one just leaves no transaction.
   */
  refuseUnacceptedMessages?: boolean;
  /**
   * Keeps the chain in this file: a devnet started on a saved one carries on from it (accounts, blocks,
   * transactions). Saved on close() and, with saveIntervalMs, on a timer.
   */
  snapshotFile?: string;
  /** How often a snapshotFile devnet looks for new transactions to save; 0 or unset: only on close(). */
  saveIntervalMs?: number;
}

export interface TonDevnet {
  /** http://host:port; the API is under /api/v3/. */
  url: string;
  globalId: number;
  /** A V5R1 wallet, deployed, with an effectively unlimited balance; secretKey is its 32-byte seed in hex. */
  faucet: { address: string; secretKey: string };
  /** The demo USDT master (6 decimals), user-friendly bounceable form. */
  tokens: { jetton: { USDT: string } };
  /**
   * Sends `nanotons` from the faucet (bounce false); resolves once the block holding it closed, with the
   * normalized hash (TEP-467, hex) of the faucet's message: the id the gateway gives the payment.
   */
  fund(address: string, nanotons: bigint): Promise<string>;
  /** Mints `units` of the jetton to `owner`'s jetton wallet (deploying it); as `fund` resolves. */
  mintJetton(master: string, owner: string, units: bigint): Promise<string>;
  /** Closes `blocks` blocks now (default 1). */
  advance(blocks?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTonDevnet(options: TonDevnetOptions = {}): Promise<TonDevnet> {
  const interval = options.blockIntervalMs === undefined ? 1000 : options.blockIntervalMs;
  const globalId = options.globalId ?? MAINNET_GLOBAL_ID;
  if (globalId !== MAINNET_GLOBAL_ID && globalId !== TESTNET_GLOBAL_ID) {
    throw new Error(`globalId is -239 (mainnet) or -3 (testnet), not ${globalId}`);
  }
  const emulator = await DevnetBlockchain.open(globalId);
  const chain = new TonChain(emulator, globalId);
  const faucet = new Faucet(devnetSeed('switchyard.ton.devnet.faucet'), globalId);
  const snapshotFile = options.snapshotFile;
  const saved = snapshotFile === undefined ? null : await readSnapshot(snapshotFile);
  if (saved && (saved.globalId !== globalId || saved.faucet !== faucet.address.toRawString())) {
    throw new Error(`the TON devnet saved in ${snapshotFile} ran on another network or faucet key`);
  }
  if (saved) await chain.importState(saved.state);
  // A saved chain already holds both (deploying checks): the minter keeps its supply and holders.
  await faucet.deploy(emulator);
  const usdt = await deployMinter(emulator, await jettonCode(), faucet.address, USDT_METADATA);

  // One piece of emulator work at a time: a block's messages run together, get-methods between blocks.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const run = queue.then(job, job);
    queue = run.catch(() => {});
    return run;
  };
  const closeBlock = () => serial(() => chain.closeBlock());
  // A block closed in the background (timer, a faucet send on manual blocks): a failure is logged, the
  // devnet goes on.
  const closeBlockLogged = () => {
    closeBlock().catch((err) => console.error('ton devnet: closing a block failed', err));
  };
  if (!saved) await closeBlock();

  let saver: ChainSaver | null = null;
  if (snapshotFile !== undefined) {
    // Under the serial lock: a save never sees a block half run.
    const save = () =>
      serial(() =>
        writeSnapshot(snapshotFile, {
          globalId,
          faucet: faucet.address.toRawString(),
          usdt: usdt.toRawString(),
          state: chain.exportState(),
        }),
      );
    if (!saved) await save();
    saver = new ChainSaver(
      {
        head: async () => BigInt(chain.head.seqno),
        hasTransactions: async (after, upTo) => chain.hasTransactions(Number(after), Number(upTo)),
        save,
      },
      { intervalMs: options.saveIntervalMs ?? 0 },
      BigInt(chain.head.seqno),
      (err) => console.error('ton devnet: saving the chain failed', err),
    );
    saver.start();
  }

  /**
   * Queues a faucet-signed message for the next block; resolves when that block closed, with the
   * message's normalized hash (hex).
   */
  const fromFaucet = (messages: MessageRelaxed[]): Promise<string> => {
    let sent: Message | null = null;
    const landed = new Promise<string>((resolve, reject) => {
      chain.enqueue({
        message: async () => {
          sent = await faucet.transfer(emulator, messages);
          return sent;
        },
        settle: (refusal) => {
          const hash = sent === null ? null : normalizedExternalHash(sent);
          if (refusal) reject(refusal);
          else if (hash === null) reject(new Error('the faucet sent no external message'));
          else resolve(hash.toString('hex'));
        },
      });
    });
    // With blocks only on demand, nobody else would close the block the caller waits for.
    if (interval === null) closeBlockLogged();
    return landed;
  };

  const submit = (message: Message) => chain.enqueue({ message: async () => message, settle: () => {} });

  const server = createApiServer(
    apiRoutes({
      chain,
      globalId,
      serial,
      submit,
      refuseUnaccepted: options.refuseUnacceptedMessages ?? false,
    }),
    (err) => console.error('ton devnet:', err),
  );
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';

  let closing = false;
  const timer =
    interval === null
      ? null
      : setInterval(() => {
          if (!closing) closeBlockLogged();
        }, interval);
  timer?.unref();

  const testOnly = globalId === TESTNET_GLOBAL_ID;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    globalId,
    faucet: {
      address: faucet.address.toString({ bounceable: false, testOnly }),
      secretKey: faucet.seed.toString('hex'),
    },
    tokens: { jetton: { USDT: usdt.toString({ bounceable: true, testOnly }) } },
    fund: (address, nanotons) =>
      fromFaucet([internal({ to: Address.parse(address), value: nanotons, bounce: false })]),
    mintJetton: async (master, owner, units) => {
      // Only the devnet's own masters take the faucet's mint (elsewhere it would bounce and mint nothing).
      if (!Address.parse(master).equals(usdt)) throw new Error(`${master} is not a jetton of this devnet`);
      return fromFaucet([mintMessage(usdt, Address.parse(owner), units, faucet.address)]);
    },
    advance: async (blocks = 1) => {
      for (let i = 0; i < blocks; i++) await closeBlock();
    },
    close: async () => {
      closing = true;
      if (timer) clearInterval(timer);
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      // What was sent just before the stop lands, as it would have a moment later.
      await serial(async () => {
        if (chain.hasQueued()) await chain.closeBlock();
      });
      await saver?.stop();
    },
  };
}
