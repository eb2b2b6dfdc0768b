// Core's acceptance rules, through POST /tx and sendrawtransaction on one devnet: each refusal with its
// code and text, RBF, chains of unconfirmed spends, legacy P2PKH, and the faucet's own key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../../devnets/bitcoin/index.ts';
import { get, getJson, outputTo, postTx, rpc, spend, spendTaproot, taprootKey, testKey } from './helpers.ts';

let devnet: BitcoinDevnet;
const alice = testKey('mempool.alice');
const bob = testKey('mempool.bob');

beforeAll(async () => {
  devnet = await startBitcoinDevnet();
});
afterAll(async () => {
  await devnet.close();
});

/** A confirmed coin of `sats` for alice (or another key). */
async function coin(sats: bigint, key = alice) {
  const txid = await devnet.faucet(key.address, sats);
  await devnet.mine();
  return { ...(await outputTo(devnet.url, txid, key.script)), key };
}

const esploraError = (code: number, message: string) =>
  `sendrawtransaction RPC error: ${JSON.stringify({ code, message })}`;

async function refusedBoth(hex: string, code: number, message: string | RegExp) {
  const rest = await postTx(devnet.url, hex);
  expect(rest.status).toBe(400);
  expect(rest.type).toMatch(/^text\/plain/);
  const core = await rpc(devnet.coreUrl, 'sendrawtransaction', [hex]);
  expect(core.status).toBe(500);
  expect(core.error?.code).toBe(code);
  const prefix = 'sendrawtransaction RPC error: ';
  expect(rest.text.startsWith(prefix)).toBe(true);
  const wrapped = JSON.parse(rest.text.slice(prefix.length)) as { code: number; message: string };
  expect(wrapped.code).toBe(code);
  if (typeof message === 'string') {
    expect(rest.text).toBe(esploraError(code, message));
    expect(core.error?.message).toBe(message);
  } else {
    expect(wrapped.message).toMatch(message);
    expect(core.error?.message).toMatch(message);
  }
}

describe('acceptance', () => {
  it('accepts a valid P2WPKH spend: POST /tx answers the txid as text', async () => {
    const c = await coin(100_000n);
    const tx = spend([c], [{ script: bob.script, value: 99_000n }]);
    const answer = await postTx(devnet.url, tx.toHex());
    expect(answer).toMatchObject({ status: 200, text: tx.getId() });
    expect(answer.type).toMatch(/^text\/plain/);
    expect((await getJson<{ status: unknown; fee: number }>(devnet.url, `/tx/${tx.getId()}`)).fee).toBe(1000);
  });

  it('refuses what does not decode: -22', async () => {
    await refusedBoth('not hex', -22, 'TX decode failed. Make sure the tx has at least one input.');
    await refusedBoth('0200000000', -22, /^TX decode failed/);
  });

  it('refuses unknown and spent inputs: -25', async () => {
    const ghost = { txid: 'ab'.repeat(32), vout: 0, value: 10_000n, key: alice };
    await refusedBoth(
      spend([ghost], [{ script: bob.script, value: 9_000n }]).toHex(),
      -25,
      'bad-txns-inputs-missingorspent',
    );
    const c = await coin(50_000n);
    const first = spend([c], [{ script: bob.script, value: 49_000n }]);
    expect((await postTx(devnet.url, first.toHex())).status).toBe(200);
    await devnet.mine();
    const again = spend([c], [{ script: bob.script, value: 48_000n }]);
    await refusedBoth(again.toHex(), -25, 'bad-txns-inputs-missingorspent');
  });

  it('refuses a confirmed transaction (-27) and one already in the mempool (-26)', async () => {
    const c = await coin(40_000n);
    const tx = spend([c], [{ script: bob.script, value: 39_000n }]);
    expect((await postTx(devnet.url, tx.toHex())).status).toBe(200);
    await refusedBoth(tx.toHex(), -26, 'txn-already-in-mempool');
    await devnet.mine();
    await refusedBoth(tx.toHex(), -27, 'Transaction already in block chain');
  });

  it('refuses outputs above inputs, a fee under 1 sat/vB, and dust', async () => {
    const c = await coin(30_000n);
    await refusedBoth(
      spend([c], [{ script: bob.script, value: 30_001n }]).toHex(),
      -26,
      'bad-txns-in-belowout, value in (0.0003) < value out (0.00030001)',
    );
    const cheap = spend([c], [{ script: bob.script, value: 29_950n }]);
    await refusedBoth(cheap.toHex(), -26, `min relay fee not met, 50 < ${cheap.virtualSize()}`);
    await refusedBoth(
      spend(
        [c],
        [
          { script: bob.script, value: 29_000n },
          { script: bob.script, value: 293n },
        ],
      ).toHex(),
      -26,
      'dust',
    );
    await refusedBoth(
      spend(
        [c],
        [
          { script: bob.script, value: 28_000n },
          { script: bob.p2pkhScript, value: 545n },
        ],
      ).toHex(),
      -26,
      'dust',
    );
    // at the thresholds it passes
    const edge = spend(
      [c],
      [
        { script: bob.script, value: 28_000n },
        { script: bob.p2pkhScript, value: 546n },
      ],
    );
    expect((await postTx(devnet.url, edge.toHex())).status).toBe(200);
  });

  it('refuses a bad signature and a key that does not match the output', async () => {
    const c = await coin(20_000n);
    await refusedBoth(
      spend([c], [{ script: bob.script, value: 19_000n }], { signValue: 20_001n }).toHex(),
      -26,
      'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)',
    );
    await refusedBoth(
      spend([{ ...c, key: bob }], [{ script: bob.script, value: 19_000n }]).toHex(),
      -26,
      'mandatory-script-verify-flag-failed (Witness program hash mismatch)',
    );
  });

  it('refuses a coinbase spend before 100 confirmations', async () => {
    const faucet = testKey(Buffer.from(devnet.faucetPrivateKey, 'hex'));
    const [hash] = await devnet.mine();
    const block = await getJson<string[]>(devnet.url, `/block/${hash}/txids`);
    const coinbase = { txid: block[0] as string, vout: 0, value: 5_000_000_000n, key: faucet };
    await refusedBoth(
      spend([coinbase], [{ script: bob.script, value: 4_999_990_000n }]).toHex(),
      -26,
      'bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 1',
    );
  });

  it('accepts spends of unconfirmed outputs, and mines parent and child together', async () => {
    const c = await coin(60_000n);
    const parent = spend([c], [{ script: bob.script, value: 59_000n }]);
    expect((await postTx(devnet.url, parent.toHex())).status).toBe(200);
    const child = spend(
      [{ txid: parent.getId(), vout: 0, value: 59_000n, key: bob }],
      [{ script: alice.script, value: 58_000n }],
    );
    expect((await postTx(devnet.url, child.toHex())).text).toBe(child.getId());
    const spent = { spent: true, txid: child.getId(), vin: 0, status: { confirmed: false } };
    expect(await getJson(devnet.url, `/tx/${parent.getId()}/outspends`)).toEqual([spent]);
    expect(await getJson(devnet.url, `/tx/${parent.getId()}/outspend/0`)).toEqual(spent);
    expect((await get(devnet.url, `/tx/${parent.getId()}/outspend/1`)).status).toBe(404);
    const [hash] = await devnet.mine();
    const txids = await getJson<string[]>(devnet.url, `/block/${hash}/txids`);
    expect(txids.indexOf(parent.getId())).toBeGreaterThan(0);
    expect(txids.indexOf(child.getId())).toBeGreaterThan(txids.indexOf(parent.getId()));
  });

  it("refuses a 26th unconfirmed transaction in a chain, as Core's package limit does", async () => {
    const c = await coin(100_000n);
    let previous = { txid: c.txid, vout: c.vout, value: c.value, key: alice };
    for (let i = 1; i <= 25; i++) {
      const tx = spend([previous], [{ script: alice.script, value: previous.value - 200n }]);
      expect((await postTx(devnet.url, tx.toHex())).status, `transaction ${i}`).toBe(200);
      previous = { txid: tx.getId(), vout: 0, value: previous.value - 200n, key: alice };
    }
    const entry = await rpc(devnet.coreUrl, 'getmempoolentry', [previous.txid]);
    expect(entry.result).toMatchObject({ ancestorcount: 25 });
    const tooLong = spend([previous], [{ script: alice.script, value: previous.value - 200n }]);
    await refusedBoth(
      tooLong.toHex(),
      -26,
      'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]',
    );
    await devnet.mine();
    expect((await postTx(devnet.url, tooLong.toHex())).status).toBe(200);
    await devnet.mine();
  });

  it('accepts and verifies legacy P2PKH spends', async () => {
    const funding = await devnet.faucet(alice.p2pkhAddress, 70_000n);
    await devnet.mine();
    const out = await outputTo(devnet.url, funding, alice.p2pkhScript);
    const good = spend([{ ...out, key: alice, kind: 'p2pkh' }], [{ script: bob.script, value: 60_000n }]);
    const bad = spend([{ ...out, key: bob, kind: 'p2pkh' }], [{ script: bob.script, value: 60_000n }]);
    await refusedBoth(
      bad.toHex(),
      -26,
      'mandatory-script-verify-flag-failed (Script failed an OP_EQUALVERIFY operation)',
    );
    expect((await postTx(devnet.url, good.toHex())).text).toBe(good.getId());
  });

  it('verifies taproot key-path spends (BIP-341, schnorr) and pays bech32m addresses', async () => {
    const key = taprootKey('mempool.taproot');
    const funding = spend([await coin(80_000n)], [{ script: key.script, value: 79_000n }]);
    expect((await postTx(devnet.url, funding.toHex())).status).toBe(200);
    const tx = await getJson<{ vout: { scriptpubkey_type: string; scriptpubkey_address: string }[] }>(
      devnet.url,
      `/tx/${funding.getId()}`,
    );
    expect(tx.vout[0]?.scriptpubkey_type).toBe('v1_p2tr');
    const address = tx.vout[0]?.scriptpubkey_address as string;
    expect(address).toMatch(/^bcrt1p/);
    expect(await getJson(devnet.url, `/address/${address}/utxo`)).toHaveLength(1);
    const coinOut = { txid: funding.getId(), vout: 0, value: 79_000n };
    await refusedBoth(
      spendTaproot(coinOut, key, [{ script: bob.script, value: 78_000n }], { tamper: true }).toHex(),
      -26,
      'mandatory-script-verify-flag-failed (Invalid Schnorr signature)',
    );
    const good = spendTaproot(coinOut, key, [{ script: bob.script, value: 78_000n }]);
    expect((await postTx(devnet.url, good.toHex())).text).toBe(good.getId());
    // the faucet pays taproot addresses too
    const paid = await devnet.faucet(address, 5_000n);
    expect(
      (await getJson<{ vout: { scriptpubkey: string }[] }>(devnet.url, `/tx/${paid}`)).vout[0]?.scriptpubkey,
    ).toBe(Buffer.from(key.script).toString('hex'));
  });

  it('POST /tx refuses a fee over the default maxfeerate of Core (0.10 BTC/kvB), as electrs does', async () => {
    const c = await coin(10_000_000n);
    const greedy = spend([c], [{ script: bob.script, value: 5_000_000n }]);
    await refusedBoth(
      greedy.toHex(),
      -25,
      'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)',
    );
  });

  it('answers 413 to a body over 4 MB', async () => {
    const res = await fetch(`${devnet.url}/tx`, { method: 'POST', body: 'a'.repeat(4 * 1024 * 1024 + 1) });
    expect(res.status).toBe(413);
  });
});

describe('replacement (BIP-125)', () => {
  it('replaces a signalling transaction with one paying more, and evicts its children', async () => {
    const c = await coin(100_000n);
    const first = spend([c], [{ script: bob.script, value: 99_000n }]);
    expect((await postTx(devnet.url, first.toHex())).status).toBe(200);
    const child = spend(
      [{ txid: first.getId(), vout: 0, value: 99_000n, key: bob }],
      [{ script: bob.script, value: 98_000n }],
    );
    expect((await postTx(devnet.url, child.toHex())).status).toBe(200);

    const tooLittle = spend([c], [{ script: alice.script, value: 98_900n }]);
    await refusedBoth(tooLittle.toHex(), -26, /^insufficient fee, rejecting replacement [0-9a-f]{64}/);

    const better = spend([c], [{ script: alice.script, value: 97_000n }]);
    expect((await postTx(devnet.url, better.toHex())).text).toBe(better.getId());
    expect((await get(devnet.url, `/tx/${first.getId()}`)).status).toBe(404);
    expect((await get(devnet.url, `/tx/${child.getId()}`)).status).toBe(404);
    const mempool = await getJson<string[]>(devnet.url, '/mempool/txids');
    expect(mempool).toContain(better.getId());
  });

  it('refuses to replace a transaction that does not signal', async () => {
    const c = await coin(100_000n);
    const final = spend([{ ...c, sequence: 0xffffffff }], [{ script: bob.script, value: 99_000n }]);
    expect((await postTx(devnet.url, final.toHex())).status).toBe(200);
    await refusedBoth(
      spend([c], [{ script: alice.script, value: 90_000n }]).toHex(),
      -26,
      'txn-mempool-conflict',
    );
  });
});

describe('the faucet', () => {
  it('sends into the mempool; mining confirms it', async () => {
    const txid = await devnet.faucet(bob.address, 12_345n);
    const status = await getJson<{ confirmed: boolean }>(devnet.url, `/tx/${txid}/status`);
    expect(status).toEqual({ confirmed: false });
    await devnet.mine();
    expect(
      await getJson<{ confirmed: boolean; block_height: number }>(devnet.url, `/tx/${txid}/status`),
    ).toMatchObject({
      confirmed: true,
      block_height: devnet.height(),
    });
  });
});
