/**
 * Custodial TON sends run on the TON emulator (@ton/sandbox) behind a node of the sends' own terms: the
 * V5R1 messages the gateway signs deploy the wallet and move TON with their comment, one wallet's
 * concurrent sends take consecutive seqnos (within a process and across two sharing a database), and a
 * lost message is signed again on a fresh seqno.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { Address, beginCell, Cell, loadMessage, toNano } from '@ton/core';
import { Blockchain } from '@ton/sandbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { custodialWallet } from '../../src/chains/ton/build.ts';
import { normalizedMessageHash } from '../../src/chains/ton/message-hash.ts';
import type { AccountStatus, Landing, TonSendNode, WalletState } from '../../src/chains/ton/send-node.ts';
import { TonSends } from '../../src/chains/ton/sends.ts';
import { TonSeqnoTaken } from '../../src/chains/ton/seqno.ts';
import { WalletTurns } from '../../src/chains/ton/wallet-turns.ts';
import { ApiError } from '../../src/errors.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase, type TestDatabase } from '../helpers/gateway.ts';
import { openMigratedStore } from '../helpers/test-store.ts';

/** The emulator as the sends' node; `lose` drops that many messages, as a node or validator may. */
class EmulatorNode implements TonSendNode {
  readonly landings = new Map<string, Landing>();
  readonly seqnosSent: number[] = [];
  /** The messages the wallets sent, as the receivers got them. */
  readonly delivered: { to: string; value: bigint; comment: string | null }[] = [];
  lose = 0;
  /** The index lags: wallet reads answer the state before the last landing. */
  lagging = false;
  /** That many wallet reads answer the state before the last landing, then the index catches up. */
  staleReads = 0;
  #before = new Map<string, WalletState>();

  constructor(readonly chain: Blockchain) {}

  async walletState(address: string): Promise<WalletState> {
    const lagged = this.#before.get(address);
    if (lagged !== undefined && this.staleReads > 0) {
      this.staleReads--;
      return lagged;
    }
    if (this.lagging && lagged !== undefined) return lagged;
    return this.#read(address);
  }

  async #read(address: string): Promise<WalletState> {
    const contract = await this.chain.getContract(Address.parseRaw(address));
    const status = await this.accountStatus(address);
    const seqno = status === 'active' ? (await contract.get('seqno')).stackReader.readNumber() : 0;
    return { status, balance: contract.balance, seqno };
  }

  async accountStatus(address: string): Promise<AccountStatus> {
    const state = (await this.chain.getContract(Address.parseRaw(address))).accountState;
    if (state === undefined) return 'nonexist';
    return state.type;
  }

  jettonWalletOf(): Promise<string | null> {
    throw new Error('no jettons here');
  }
  jettonBalance(): Promise<bigint> {
    throw new Error('no jettons here');
  }
  jettonMasterOf(): Promise<string | null> {
    throw new Error('no jettons here');
  }
  jettonDecimals(): Promise<number | null> {
    throw new Error('no jettons here');
  }
  async walletPublicKey(wallet: string): Promise<Buffer | null> {
    if ((await this.accountStatus(wallet)) !== 'active') return null;
    const read = await (await this.chain.getContract(Address.parseRaw(wallet))).get('get_public_key');
    return Buffer.from(read.stackReader.readBigNumber().toString(16).padStart(64, '0'), 'hex');
  }
  async estimateFee() {
    return { inForward: 1_000_000n, storage: 0n, gas: 3_000_000n, forward: 1_000_000n };
  }

  async sendMessage(boc: string): Promise<void> {
    const message = loadMessage(Cell.fromBase64(boc).beginParse());
    const body = message.body.beginParse();
    body.skip(32 + 32 + 32);
    const seqno = body.loadUint(32);
    if (this.lose > 0) {
      this.lose--;
      return;
    }
    if (message.info.type !== 'external-in') throw new Error('not external');
    const wallet = message.info.dest.toRawString();
    const before = await this.#read(wallet);
    if (seqno !== before.seqno) throw new TonSeqnoTaken(`seqno ${seqno} is not the wallet's ${before.seqno}`);
    const result = await this.chain.sendMessage(message);
    const [tx, ...received] = result.transactions;
    if (tx === undefined) throw new Error('no transaction');
    for (const each of received) {
      const inbound = each.inMessage;
      if (inbound?.info.type !== 'internal') continue;
      const body = inbound.body.beginParse();
      const comment = body.remainingBits >= 32 && body.loadUint(32) === 0 ? body.loadStringTail() : null;
      this.delivered.push({ to: inbound.info.dest.toRawString(), value: inbound.info.value.coins, comment });
    }
    this.#before.set(wallet, before);
    this.seqnosSent.push(seqno);
    const description = tx.description;
    const accepted =
      description.type === 'generic' &&
      description.computePhase.type === 'vm' &&
      description.computePhase.success;
    this.landings.set(normalizedMessageHash(message, beginCell()), {
      hash: tx.hash().toString('hex'),
      accepted,
      sentMessages: tx.outMessagesCount,
      fee: tx.totalFees.coins,
    });
  }

  async landingOf(messageHash: string): Promise<Landing | null> {
    // Each look moves the chain (and the sends' clock) on by a few seconds, so a lost message's
    // lifetime passes within a test.
    this.chain.now = (this.chain.now ?? 0) + 5;
    return this.landings.get(messageHash) ?? null;
  }

  async chainTime(): Promise<number> {
    return this.chain.now ?? 0;
  }
}

const seed = Buffer.alloc(32, 3);
const publicKey = Buffer.from(ed25519.getPublicKey(seed));
const friendly = (address: Address) => address.toString({ testOnly: true, bounceable: false });

let chain: Blockchain;
let node: EmulatorNode;
let sends: TonSends;
let from: Address;
let receiver: Address;
let database: TestDatabase;
let store: Store;

/** The sends of a gateway instance on `on`, the test's database unless told. */
const instance = (on: Store = store) =>
  new TonSends(() => node, new WalletTurns(on, { pollMs: 5 }), {
    pollMs: 1,
    lifetimeS: 60,
    now: () => (chain.now ?? 0) * 1000,
  });

beforeEach(async () => {
  chain = await Blockchain.create();
  chain.now = 1_800_000_000;
  node = new EmulatorNode(chain);
  database = freshDatabase('sqlite');
  store = await openMigratedStore(database);
  sends = instance();
  from = custodialWallet(publicKey, 'testnet').address;
  receiver = (await chain.treasury('receiver')).address;
  const faucet = await chain.treasury('faucet');
  await faucet.send({ to: from, value: toNano('10'), bounce: false });
});

afterEach(async () => {
  await store.close();
  await database.drop();
});

async function send(amount: string, comment: string, intents: string[] = [], by: TonSends = sends) {
  const prepared = by.ton('testnet', {
    from: friendly(from),
    to: receiver.toString({ testOnly: true }),
    amount,
    comment,
  });
  const built = await prepared.build();
  return built.send(seed.toString('hex'), async (txid) => {
    intents.push(txid);
  });
}

describe('TON sends from a custodial wallet', () => {
  it('deploys the wallet with its first send and delivers the comment', async () => {
    expect(await node.accountStatus(from.toRawString())).toBe('uninit');
    const intents: string[] = [];
    const sent = await send('1.25', 'order 1', intents);
    expect(intents).toEqual([sent.txid]);
    expect(sent.data.fee).toMatch(/^0\.\d+$/);
    expect(await node.accountStatus(from.toRawString())).toBe('active');
    expect(node.delivered).toEqual([
      { to: receiver.toRawString(), value: toNano('1.25'), comment: 'order 1' },
    ]);
    expect(await node.walletPublicKey(from.toRawString())).toEqual(publicKey);
  });

  it('gives concurrent sends of one wallet consecutive seqnos, also while the index lags', async () => {
    await send('0.1', 'first');
    node.lagging = true;
    const sent = await Promise.all(['a', 'b', 'c', 'd'].map((comment) => send('0.1', comment)));
    expect(new Set(sent.map((s) => s.txid)).size).toBe(4);
    expect(node.seqnosSent).toEqual([0, 1, 2, 3, 4]);
    expect(node.delivered.map((d) => d.comment).sort()).toEqual(['a', 'b', 'c', 'd', 'first']);
  });

  it('takes turns with another instance on the same database: consecutive seqnos while the index lags', async () => {
    const other = instance();
    await send('0.1', 'first');
    node.lagging = true;
    const intents: string[] = [];
    const sent = await Promise.all(
      ['a', 'b', 'c', 'd'].map((comment, i) => send('0.1', comment, intents, i % 2 === 0 ? sends : other)),
    );
    // No message was refused and signed again: each instance knew the seqno the other's send took.
    expect(intents).toEqual(expect.arrayContaining(sent.map((s) => s.txid)));
    expect(intents).toHaveLength(4);
    expect(node.seqnosSent).toEqual([0, 1, 2, 3, 4]);
    expect(node.delivered.map((d) => d.comment).sort()).toEqual(['a', 'b', 'c', 'd', 'first']);
  });

  it('signs again when the node refuses the seqno a message the gateway never saw took', async () => {
    await send('0.1', 'from this gateway');
    // A gateway on another database has no memory of that send, and the index has not caught up yet.
    const otherDatabase = freshDatabase('sqlite');
    const otherStore = await openMigratedStore(otherDatabase);
    const elsewhere = instance(otherStore);
    node.staleReads = 1;
    const intents: string[] = [];
    const built = await elsewhere
      .ton('testnet', { from: friendly(from), to: receiver.toString({ testOnly: true }), amount: '0.2' })
      .build();
    node.staleReads = 1;
    const sent = await built.send(seed.toString('hex'), async (txid) => {
      intents.push(txid);
    });
    expect(intents).toHaveLength(2);
    expect(intents[1]).toBe(sent.txid);
    expect(node.seqnosSent).toEqual([0, 1]);
    await otherStore.close();
    await otherDatabase.drop();
  });

  it('signs a lost message again on a fresh seqno, telling the intent its new txid', async () => {
    node.lose = 1;
    const intents: string[] = [];
    const sent = await send('0.5', 'lost once', intents);
    expect(intents).toHaveLength(2);
    expect(intents[1]).toBe(sent.txid);
    expect(intents[0]).not.toBe(sent.txid);
    expect(node.seqnosSent).toEqual([0]);
  });

  it('gives up after three lost messages, saying nothing was sent', async () => {
    node.lose = 3;
    const refusal = await send('0.5', 'lost', []).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(422);
    expect((refusal as ApiError).message).toMatch(/not taken on chain before it expired, 3 times/);
  });

  it('refuses before signing a send the balance does not cover, with the figures in TON', async () => {
    const refusal = await send('10', 'too much').catch((error: unknown) => error);
    expect((refusal as ApiError).status).toBe(422);
    expect((refusal as ApiError).message).toMatch(
      /^Insufficient funds: .* holds 10 TON, and the transfer needs 10\.005 TON \(10 TON and a fee of 0\.005 TON\)$/,
    );
    // More than the balance is refused before the node is asked for an estimate.
    const hopeless = await send('12', 'far too much').catch((error: unknown) => error);
    expect((hopeless as ApiError).message).toMatch(
      /^Insufficient funds: .* holds 10 TON, and the transfer needs 12 TON \(before its fee\)$/,
    );
    expect(node.seqnosSent).toEqual([]);
  });

  it('refuses a key that is not the wallet’s', async () => {
    const built = await sends
      .ton('testnet', { from: friendly(from), to: receiver.toString({ testOnly: true }), amount: '1' })
      .build();
    const refusal = await built
      .send(Buffer.alloc(32, 9).toString('hex'), async () => {})
      .catch((e: unknown) => e);
    expect((refusal as ApiError).message).toMatch(/does not belong to/);
  });
});
