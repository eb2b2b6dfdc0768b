// TON sends through the HTTP API on the project's TON devnet (the emulator behind toncenter's v3 API):
// custodial TON and jetton transfers with comments (the first deploying the wallet), refusals before
// signing with their figures, one wallet's concurrent sends, and a transfer built by the gateway, signed
// with @ton/ton as a user would and broadcast through it.
import { keyPairFromSeed } from '@ton/crypto';
import { Address, beginCell, external, internal, storeMessage, WalletContractV5R1 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../devnets/ton/index.ts';
import { type ApiResponse, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type BuiltTonTransfer, signBuiltTransfer } from '../helpers/ton-signing.ts';
import { withUnnamedNodesDead } from '../helpers/unserved-nodes.ts';

const PASSWORD = 'correct horse battery';
const TON = 1_000_000_000n;

let devnet: TonDevnet;
let gw: TestGateway;
let token: string;

beforeAll(async () => {
  // The node runs each message on the current state before taking it, as a liteserver does.
  devnet = await startTonDevnet({ blockIntervalMs: 250, refuseUnacceptedMessages: true });
  gw = await startGateway({
    env: withUnnamedNodesDead({ TON_MAINNET_URLS: devnet.url, NODE_RETRIES: '1', LOG_LEVEL: 'warn' }),
  });
  ({ token } = await gw.userToken(undefined, 'enterprise'));
}, 120_000);

afterAll(async () => {
  await gw?.close();
  await devnet?.close();
});

function api(method: string, path: string, json?: Record<string, unknown>): Promise<ApiResponse> {
  return gw.request(method, `/api/v2/ton${path}`, { token, ...(json === undefined ? {} : { json }) });
}

/** A custodial address of this file's user, funded with `nanotons` by the devnet's faucet. */
async function fundedAddress(nanotons: bigint): Promise<string> {
  const created = await api('POST', '/addresses', { password: PASSWORD });
  expect(created.status, created.text).toBe(201);
  const data = created.body.data;
  const address: string = Array.isArray(data) ? data[0].address : data.address;
  if (nanotons > 0n) await devnet.fund(address, nanotons);
  return address;
}

async function nanotonsOf(address: string): Promise<bigint> {
  const res = await api('GET', `/balances/${address}`);
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.nanotons);
}

async function jettonUnitsOf(address: string, master: string): Promise<bigint> {
  const res = await api('GET', `/balances/${address}/jetton/${master}`);
  expect(res.status, res.text).toBe(200);
  return BigInt(res.body.data.balance_raw);
}

/** The history's row of a send. */
async function historyRow(txid: string): Promise<Record<string, unknown> | undefined> {
  const history = await api('GET', '/transactions?page=1');
  expect(history.status, history.text).toBe(200);
  return history.body.data.find((row: { txid: string | null }) => row.txid === txid);
}

/** The devnet's own record of the transaction a message (its normalized hash, hex) landed in. */
async function landedBy(txid: string) {
  const answer = await fetch(`${devnet.url}/api/v3/transactionsByMessage?msg_hash=${txid}&direction=in`);
  const { transactions } = (await answer.json()) as {
    transactions: {
      out_msgs: { value: string; message_content: { decoded: { comment?: string } | null } }[];
    }[];
  };
  return transactions[0];
}

describe('TON sends from custodial addresses', () => {
  it('sends TON with a comment, deploying the wallet, and answers the landed message', async () => {
    const from = await fundedAddress(3n * TON);
    const to = await fundedAddress(0n);
    const sent = await api('POST', '/transactions', {
      from,
      to,
      amount: '1.25',
      comment: 'order 1001',
      password: PASSWORD,
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.data.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(sent.body.data.fee).toMatch(/^0\.\d+$/);
    expect(await nanotonsOf(to)).toBe(1_250_000_000n);
    const landed = await landedBy(sent.body.data.txid);
    expect(landed?.out_msgs[0]?.value).toBe('1250000000');
    expect(landed?.out_msgs[0]?.message_content.decoded?.comment).toBe('order 1001');
    // The history keeps the send under its txid.
    expect(await historyRow(sent.body.data.txid)).toMatchObject({
      type: 'TON',
      from,
      to,
      amount: '1.250000000',
    });
  });

  it('refuses before signing what the balance does not cover, with the figures in TON', async () => {
    const from = await fundedAddress(TON);
    const to = await fundedAddress(0n);
    const refused = await api('POST', '/transactions', { from, to, amount: '1', password: PASSWORD });
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.message).toMatch(
      new RegExp(
        `^Insufficient funds: ${from} holds 1 TON, and the transfer needs 1\\.\\d+ TON \\(1 TON and a fee of 0\\.\\d+ TON\\)$`,
      ),
    );
    expect(await nanotonsOf(to)).toBe(0n);
    const badComment = await api('POST', '/transactions', {
      from,
      to,
      amount: '0.1',
      comment: 'a\u0000b',
      password: PASSWORD,
    });
    expect(badComment.status).toBe(422);
    expect(badComment.body.errors[0].field).toBe('comment');
  });

  it("gives one wallet's concurrent sends consecutive seqnos: every one lands", async () => {
    const from = await fundedAddress(5n * TON);
    const to = await fundedAddress(0n);
    const sends = await Promise.all(
      [1, 2, 3].map((n) =>
        api('POST', '/transactions', { from, to, amount: '0.1', comment: `part ${n}`, password: PASSWORD }),
      ),
    );
    for (const sent of sends) expect(sent.status, sent.text).toBe(201);
    expect(new Set(sends.map((sent) => sent.body.data.txid)).size).toBe(3);
    for (const sent of sends)
      expect((await landedBy(sent.body.data.txid))?.out_msgs[0]?.value).toBe('100000000');
    // The receiver has no code yet: each payment it gets pays its storage due, a few nanotons.
    expect(await nanotonsOf(to)).toBeGreaterThan(299_999_000n);
  });
});

describe('jetton sends', () => {
  it("sends USDT with a comment from the sender's jetton wallet; refuses too few jettons or too little TON", async () => {
    const usdt = devnet.tokens.jetton.USDT;
    const from = await fundedAddress(TON);
    await devnet.mintJetton(usdt, from, 5_000_000n);
    const to = await fundedAddress(0n);

    const tooMany = await api('POST', '/transactions/jetton', {
      from,
      to,
      contractaddress: usdt,
      amount: '5.000001',
      password: PASSWORD,
    });
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(tooMany.body.message).toMatch(
      /^Insufficient funds: .* holds 5 of jetton .*, and the transfer needs 5\.000001$/,
    );

    const sent = await api('POST', '/transactions/jetton', {
      from,
      to,
      contractaddress: usdt,
      amount: '2.5',
      comment: 'invoice 77',
      password: PASSWORD,
    });
    expect(sent.status, sent.text).toBe(201);
    expect(await historyRow(sent.body.data.txid)).toMatchObject({
      type: 'JETTON',
      from,
      to,
      amount: '2.500000',
    });
    await devnet.advance();
    expect(await jettonUnitsOf(to, usdt)).toBe(2_500_000n);
    // The gateway's own read of the send: the jettons left with their comment.
    const decoded = await api('GET', `/transactions/${sent.body.data.txid}/decoded`);
    expect(decoded.status, decoded.text).toBe(200);
    expect(decoded.body.data.transfers).toContainEqual(
      expect.objectContaining({
        type: 'JETTON',
        direction: 'out',
        amount: '2.500000',
        comment: 'invoice 77',
      }),
    );
    expect(await jettonUnitsOf(from, usdt)).toBe(2_500_000n);

    const poor = await fundedAddress(10_000_000n);
    await devnet.mintJetton(usdt, poor, 1_000_000n);
    const noGas = await api('POST', '/transactions/jetton', {
      from: poor,
      to,
      contractaddress: usdt,
      amount: '1',
      password: PASSWORD,
    });
    expect(noGas.status, noGas.text).toBe(422);
    expect(noGas.body.message).toMatch(
      /^Insufficient funds: .* holds 0\.01 TON, and the jetton transfer needs 0\.05\d* TON \(0\.05 TON attached/,
    );
  });
});

/** A mainnet V5R1 wallet of a key the gateway never sees, made from one repeated seed byte. */
function outsideWallet(seedByte: number) {
  const keys = keyPairFromSeed(Buffer.alloc(32, seedByte));
  const wallet = WalletContractV5R1.create({
    workchain: 0,
    publicKey: keys.publicKey,
    walletId: { networkGlobalId: -239 },
  });
  return { keys, wallet };
}

describe('a transfer built by the gateway and signed elsewhere', () => {
  it('is signed with @ton/ton as the build answer says, and broadcast', async () => {
    const { keys, wallet } = outsideWallet(42);
    const from = wallet.address.toString({ bounceable: false });
    await devnet.fund(from, 2n * TON);
    const to = await fundedAddress(0n);

    // Not deployed yet: the address alone does not tell the key.
    const keyless = await api('POST', '/transactions/build', { from, to, amount: '0.5' });
    expect(keyless.status).toBe(422);
    expect(keyless.body.errors[0].field).toBe('publickey');

    const built = await api('POST', '/transactions/build', {
      from,
      to,
      amount: '0.5',
      comment: 'signed elsewhere',
      publickey: keys.publicKey.toString('hex'),
    });
    expect(built.status, built.text).toBe(200);
    const transfer = built.body.data.transfer;
    expect(transfer.stateInit).not.toBeNull();
    expect(transfer.seqno).toBe(0);

    const { boc } = signBuiltTransfer(transfer, keys);

    const broadcast = await api('POST', '/transactions/broadcast', { boc });
    expect(broadcast.status, broadcast.text).toBe(201);
    expect(broadcast.body.data.txid).toMatch(/^[0-9a-f]{64}$/);
    await devnet.advance();
    expect(await nanotonsOf(to)).toBe(500_000_000n);
    const landed = await landedBy(broadcast.body.data.txid);
    expect(landed?.out_msgs[0]?.message_content.decoded?.comment).toBe('signed elsewhere');
    expect(await historyRow(broadcast.body.data.txid)).toMatchObject({
      type: 'TON',
      from,
      to,
      amount: '0.500000000',
    });

    // Deployed now: the wallet tells its key.
    const again = await api('POST', '/transactions/build', { from, to, amount: '0.1' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.transfer).toMatchObject({ seqno: 1, stateInit: null });
  });

  it('builds a jetton transfer from a deployed wallet, which tells its own key; the broadcast is recorded as the jettons sent', async () => {
    const usdt = devnet.tokens.jetton.USDT;
    const { keys, wallet } = outsideWallet(43);
    const from = wallet.address.toString({ bounceable: false });
    await devnet.fund(from, 2n * TON);
    await devnet.mintJetton(usdt, from, 3_000_000n);
    const to = await fundedAddress(0n);
    const sign = (transfer: BuiltTonTransfer) => signBuiltTransfer(transfer, keys).boc;
    // A first TON send deploys the wallet.
    const first = await api('POST', '/transactions/build', {
      from,
      to,
      amount: '0.1',
      publickey: keys.publicKey.toString('hex'),
    });
    expect(first.status, first.text).toBe(200);
    expect(
      (await api('POST', '/transactions/broadcast', { boc: sign(first.body.data.transfer) })).status,
    ).toBe(201);
    await devnet.advance();

    const built = await api('POST', '/transactions/build', {
      from,
      to,
      amount: '1.75',
      contractaddress: usdt,
      comment: 'jettons signed elsewhere',
    });
    expect(built.status, built.text).toBe(200);
    expect(built.body.data.transfer).toMatchObject({ seqno: 1, stateInit: null });
    expect(built.body.data.transfer.messages[0]).toMatchObject({ value: '50000000', bounce: true });
    const broadcast = await api('POST', '/transactions/broadcast', { boc: sign(built.body.data.transfer) });
    expect(broadcast.status, broadcast.text).toBe(201);
    await devnet.advance();
    expect(await jettonUnitsOf(to, usdt)).toBe(1_750_000n);
    expect(await historyRow(broadcast.body.data.txid)).toMatchObject({
      type: 'JETTON',
      from,
      to,
      amount: '1.750000',
      contractaddress: usdt,
    });
  });

  it("answers the node's refusal of a signed message in its words: a bad signature, a used seqno", async () => {
    const { keys, wallet } = outsideWallet(44);
    const from = wallet.address.toString({ bounceable: false });
    await devnet.fund(from, TON);
    const to = await fundedAddress(0n);
    const built = await api('POST', '/transactions/build', {
      from,
      to,
      amount: '0.1',
      publickey: keys.publicKey.toString('hex'),
    });
    expect(built.status, built.text).toBe(200);
    const transfer = built.body.data.transfer;
    const signedWith = (secretKey: Buffer, seqno: number) => {
      const body = wallet.createTransfer({
        seqno,
        timeout: transfer.validUntil,
        sendMode: transfer.sendMode,
        secretKey,
        messages: [
          internal({ to: Address.parse(transfer.messages[0].to), value: 100_000_000n, bounce: false }),
        ],
      });
      const signed = external({ to: wallet.address, init: wallet.init, body });
      return beginCell().store(storeMessage(signed)).endCell().toBoc().toString('base64');
    };

    const forged = await api('POST', '/transactions/broadcast', {
      boc: signedWith(keyPairFromSeed(Buffer.alloc(32, 45)).secretKey, 0),
    });
    expect(forged.status, forged.text).toBe(422);
    expect(forged.body.message).toMatch(/^The node refused the message: .*exitcode=135/s);

    const early = await api('POST', '/transactions/broadcast', { boc: signedWith(keys.secretKey, 7) });
    expect(early.status, early.text).toBe(422);
    expect(early.body.message).toMatch(
      /^The node refused the message for its seqno or deadline: .*exitcode=133/s,
    );
  });

  it('refuses a BOC that is no signed external message with a clear 422', async () => {
    for (const boc of ['not a boc', 'te6cckEBAQEAAgAAAEysuc0=']) {
      const res = await api('POST', '/transactions/broadcast', { boc });
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors[0].field).toBe('boc');
    }
  });
});
