// Transactions built by the gateway and signed outside it, through the HTTP API on the shared devnet:
// @solana/web3.js 1.x (Transaction.from, sign, serialize) for SOL and SPL builds, @solana/kit for one,
// each broadcast by the gateway under the signature the client computed; and the broadcasts refused:
// garbage, an unsigned build, and a transaction the node itself refuses (kept in the history).
import {
  createKeyPairFromBytes,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  signTransaction,
} from '@solana/kit';
import { PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import {
  LAMPORTS_PER_SOL,
  lamportsOf,
  newKey,
  solanaApiForFile,
  tokenUnitsOf,
} from '../helpers/solana-api.ts';

const base58 = getBase58Decoder();

const context = solanaApiForFile();
const { api } = context;

async function node(method: string, params: unknown[] = []) {
  const res = await fetch(context.devnet.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

async function build(json: Record<string, unknown>) {
  const res = await api('POST', '/transactions/build', { json });
  expect(res.status, res.text).toBe(200);
  return res.body.data as {
    unsigned: string;
    fee: string;
    blockhash: string;
    lastValidBlockHeight: string;
    priorityFee: null | { microLamportsPerUnit: string; computeUnitLimit: string };
  };
}

/** Signed with web3.js as its users do; answers the wire form and the signature web3.js computed. */
function signWithWeb3(unsigned: string, key: ReturnType<typeof newKey>) {
  const tx = Transaction.from(Buffer.from(unsigned, 'base64'));
  tx.sign(key.keypair);
  return { rawtx: tx.serialize().toString('base64'), txid: base58.decode(tx.signature!) };
}

async function broadcast(rawtx: string) {
  return api('POST', '/transactions/broadcast', { json: { rawtx } });
}

describe('solana builds signed outside the gateway', () => {
  it('SOL: built, signed with web3.js, broadcast under its signature; the lamports arrive', async () => {
    const key = newKey();
    await context.devnet.airdrop(key.address, LAMPORTS_PER_SOL);
    const to = newKey().address;
    const built = await build({ from: key.address, to, amount: '0.3' });
    expect(built.fee).toBe('0.000005');
    expect(built.priorityFee).toBeNull();
    const tx = Transaction.from(Buffer.from(built.unsigned, 'base64'));
    expect(tx.recentBlockhash).toBe(built.blockhash);
    expect(tx.feePayer?.toBase58()).toBe(key.address);
    expect(tx.instructions.map((ix) => ix.programId.toBase58())).toEqual([
      SystemProgram.programId.toBase58(),
    ]);

    const signed = signWithWeb3(built.unsigned, key);
    const sent = await broadcast(signed.rawtx);
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.data).toEqual({ txid: signed.txid });
    await context.devnet.advance(1);
    expect(await lamportsOf(context, to)).toBe(300_000_000n);
    expect(await lamportsOf(context, key.address)).toBe(LAMPORTS_PER_SOL - 300_000_000n - 5000n);
    const history = await api('GET', '/transactions?page=1');
    expect(history.body.data[0]).toMatchObject({
      type: 'SOL',
      txid: signed.txid,
      from: key.address,
      to,
      httpStatus: '201',
    });
  });

  it('SPL: with the receiver token account opened in the same transaction, and to one that exists', async () => {
    const usdt = context.devnet.tokens.spl.USDT;
    const key = newKey();
    await context.devnet.airdrop(key.address, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt, key.address, 3_000_000n);

    const fresh = newKey().address;
    const opening = await build({ from: key.address, to: fresh, amount: '1.25', contractaddress: usdt });
    const openingTx = Transaction.from(Buffer.from(opening.unsigned, 'base64'));
    expect(openingTx.instructions.map((ix) => ix.programId.toBase58())).toEqual([
      'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    ]);
    const first = signWithWeb3(opening.unsigned, key);
    const sentFirst = await broadcast(first.rawtx);
    expect(sentFirst.status, sentFirst.text).toBe(201);
    expect(sentFirst.body.data.txid).toBe(first.txid);
    await context.devnet.advance(1);
    expect(await tokenUnitsOf(context, fresh, usdt)).toBe(1_250_000n);

    const holder = newKey().address;
    await context.devnet.faucetSpl(usdt, holder, 7n);
    const plain = await build({ from: key.address, to: holder, amount: '0.5', contractaddress: usdt });
    expect(
      Transaction.from(Buffer.from(plain.unsigned, 'base64')).instructions.map((ix) =>
        ix.programId.toBase58(),
      ),
    ).toEqual(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA']);
    const second = signWithWeb3(plain.unsigned, key);
    const sentSecond = await broadcast(second.rawtx);
    expect(sentSecond.status, sentSecond.text).toBe(201);
    expect(sentSecond.body.data.txid).toBe(second.txid);
    await context.devnet.advance(1);
    expect(await tokenUnitsOf(context, holder, usdt)).toBe(500_007n);
    expect(await tokenUnitsOf(context, key.address, usdt)).toBe(1_250_000n);

    const history = await api('GET', '/transactions?page=1');
    const row = (txid: string) => history.body.data.filter((r: { txid: string }) => r.txid === txid);
    // Opening the receiver's account in the same transaction, the history names the receiver's wallet.
    expect(row(first.txid)).toEqual([
      expect.objectContaining({ type: 'SPL', from: key.address, to: fresh, contractaddress: usdt }),
    ]);
    expect(row(first.txid)[0].amount).toMatch(/^1\.250*$/);
    // Into an existing token account: the history names its owner, as a send's row does.
    expect(row(second.txid)).toEqual([
      expect.objectContaining({ type: 'SPL', from: key.address, to: holder, contractaddress: usdt }),
    ]);
    expect(row(second.txid)[0].amount).toMatch(/^0\.50*$/);
  });

  it('SPL under Token-2022, signed with @solana/kit', async () => {
    const usdt22 = context.devnet.tokens.spl.USDT22;
    const key = newKey();
    await context.devnet.airdrop(key.address, LAMPORTS_PER_SOL);
    await context.devnet.faucetSpl(usdt22, key.address, 1_000_000n);
    const to = newKey().address;
    const built = await build({ from: key.address, to, amount: '0.999999', contractaddress: usdt22 });
    const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(built.unsigned));
    const signer = await createKeyPairFromBytes(key.keypair.secretKey);
    const signed = await signTransaction([signer], unsigned);
    const sent = await broadcast(getBase64EncodedWireTransaction(signed));
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.data.txid).toBe(getSignatureFromTransaction(signed));
    await context.devnet.advance(1);
    expect(await tokenUnitsOf(context, to, usdt22)).toBe(999_999n);
    expect(await tokenUnitsOf(context, key.address, usdt22)).toBe(1n);
  });
});

describe('solana broadcasts refused', () => {
  it('garbage and an unsigned build: 422 on rawtx, the node not asked to send', async () => {
    const start = context.proxy.methods.length;
    for (const rawtx of ['not base64 at all!', 'AAAA', Buffer.from('hello, solana').toString('base64')]) {
      const res = await broadcast(rawtx);
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([{ field: 'rawtx', message: expect.any(String) }]);
    }
    expect((await broadcast('not base64 at all!')).body.errors[0].message).toBe(
      'The rawtx field must be a transaction in base64.',
    );
    expect((await broadcast('AAAA')).body.errors[0].message).toBe(
      'The rawtx field is not a Solana transaction.',
    );

    const key = newKey();
    await context.devnet.airdrop(key.address, LAMPORTS_PER_SOL);
    const built = await build({ from: key.address, to: newKey().address, amount: '0.1' });
    const unsigned = await broadcast(built.unsigned);
    expect(unsigned.status, unsigned.text).toBe(422);
    expect(unsigned.body.errors).toEqual([
      { field: 'rawtx', message: 'The transaction is not signed by its fee payer.' },
    ]);
    expect(context.proxy.methods.slice(start)).not.toContain('sendTransaction');
  });

  it("a transaction the node refuses: 422 in the node's words, one history row kept as refused", async () => {
    const key = newKey();
    await context.devnet.airdrop(key.address, LAMPORTS_PER_SOL);
    await context.devnet.advance(1);
    const to = newKey().address;
    const latest = (await node('getLatestBlockhash')).result as { value: { blockhash: string } };
    const tx = new Transaction({
      feePayer: key.keypair.publicKey,
      recentBlockhash: latest.value.blockhash,
    }).add(
      SystemProgram.transfer({
        fromPubkey: key.keypair.publicKey,
        toPubkey: new PublicKey(to),
        lamports: 2n * LAMPORTS_PER_SOL,
      }),
    );
    tx.sign(key.keypair);
    const rawtx = tx.serialize().toString('base64');
    const txid = base58.decode(tx.signature!);

    const refused = await broadcast(rawtx);
    expect(refused.status, refused.text).toBe(422);
    // The node's own words for it (it refuses the same bytes the same way when asked directly).
    const direct = await node('sendTransaction', [rawtx, { encoding: 'base64' }]);
    expect(direct.error?.code).toBe(-32002);
    expect(refused.body.message).toBe(direct.error?.message);
    expect(refused.body.message).toMatch(/^Transaction simulation failed: /);

    await context.devnet.advance(1);
    expect(await lamportsOf(context, key.address)).toBe(LAMPORTS_PER_SOL);
    expect(await lamportsOf(context, to)).toBe(0n);
    const history = await api('GET', '/transactions?page=1');
    const rows = history.body.data.filter((r: { txid: string }) => r.txid === txid);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'SOL', from: key.address, to, httpStatus: '422' });
    expect(JSON.parse(rows[0].responseJson)).toEqual({ error: refused.body.message });
  });
});
