// Solana's key forms through the HTTP API: every form a Solana user holds a key in imports as the same
// address; a secret key whose halves disagree is refused; export and create answer the wallets' form,
// which @solana/web3.js reads back; a send signed with a given private key in the CLI's form.
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { LAMPORTS_PER_SOL, lamportsOf, newKey, PASSWORD, solanaApiForFile } from '../helpers/solana-api.ts';

const FORMS_MESSAGE =
  'The privatekey field must be a valid private key (a 64-byte secret key in base58 or as a JSON byte array, or a 32-byte seed in hex or base58).';

const toText = getBase58Decoder();
const toBytes = getBase58Encoder();

const context = solanaApiForFile();
const { api } = context;

async function importKey(privatekey: string, password?: string) {
  return api('POST', '/addresses/import', {
    json: password === undefined ? { privatekey } : { privatekey, password },
  });
}

describe('solana key forms', () => {
  it('the base58 secret, the CLI JSON array, the hex seed (0x optional) and the base58 seed give one address', async () => {
    const { keypair, address, secretKey } = newKey();
    const seed = keypair.secretKey.subarray(0, 32);
    const forms = {
      'base58 64-byte secret': secretKey,
      'CLI JSON array': JSON.stringify(Array.from(keypair.secretKey)),
      'CLI JSON array, spaced and padded': ` ${JSON.stringify(Array.from(keypair.secretKey), null, 1)}\n`,
      'hex seed': Buffer.from(seed).toString('hex'),
      '0x hex seed': `0x${Buffer.from(seed).toString('hex').toUpperCase()}`,
      'base58 seed': toText.decode(seed),
    };
    for (const [form, privatekey] of Object.entries(forms)) {
      const res = await importKey(privatekey);
      expect(res.status, `${form}: ${res.text}`).toBe(201);
      expect(res.body.data, form).toEqual([{ address, publicKey: address, privateKey: secretKey }]);
      expect((await api('DELETE', `/addresses/${address}`)).status, form).toBe(200);
    }
  });

  it('refuses a 64-byte secret whose second half is another key, and other near misses, naming the forms', async () => {
    const { keypair } = newKey();
    const other = Keypair.generate();
    const mixed = Uint8Array.from([...keypair.secretKey.subarray(0, 32), ...other.publicKey.toBytes()]);
    const refused = [
      toText.decode(mixed),
      JSON.stringify(Array.from(mixed)),
      JSON.stringify(Array.from(keypair.secretKey.subarray(0, 63))),
      JSON.stringify([...Array.from(keypair.secretKey.subarray(0, 63)), 256]),
      Buffer.from(keypair.secretKey).toString('hex'),
      toText.decode(keypair.secretKey.subarray(0, 31)),
    ];
    for (const privatekey of refused) {
      const res = await importKey(privatekey, PASSWORD);
      expect(res.status, `${privatekey}: ${res.text}`).toBe(422);
      expect(res.body.errors).toEqual([{ field: 'privatekey', message: FORMS_MESSAGE }]);
    }
    const listed = await api('GET', '/addresses');
    expect(listed.body.data.map((row: { address: string }) => row.address)).not.toContain(
      keypair.publicKey.toBase58(),
    );
  });

  it('export answers the base58 64-byte secret that Keypair.fromSecretKey takes', async () => {
    const { keypair, address } = newKey();
    const imported = await importKey(
      Buffer.from(keypair.secretKey.subarray(0, 32)).toString('hex'),
      PASSWORD,
    );
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.data).toEqual([{ address, publicKey: address }]);
    const exported = await api('POST', `/addresses/export/${address}`, { json: { password: PASSWORD } });
    expect(exported.status, exported.text).toBe(200);
    expect(exported.body.data).toEqual({ address, privateKey: toText.decode(keypair.secretKey) });
    const restored = Keypair.fromSecretKey(Uint8Array.from(toBytes.encode(exported.body.data.privateKey)));
    expect(restored.publicKey.toBase58()).toBe(address);
    expect(Buffer.from(restored.secretKey).equals(Buffer.from(keypair.secretKey))).toBe(true);
  });

  it('create without a password answers the same form, once', async () => {
    const created = await api('POST', '/addresses', { json: {} });
    expect(created.status, created.text).toBe(201);
    const [row] = created.body.data;
    expect(Object.keys(row).sort()).toEqual(['address', 'privateKey', 'publicKey']);
    const secret = Uint8Array.from(toBytes.encode(row.privateKey));
    expect(secret).toHaveLength(64);
    const keypair = Keypair.fromSecretKey(secret);
    expect(keypair.publicKey.toBase58()).toBe(row.address);
    expect(row.publicKey).toBe(row.address);
    const listed = await api('GET', '/addresses');
    const entry = listed.body.data.find((r: { address: string }) => r.address === row.address);
    expect(entry).toMatchObject({ address: row.address, secured: false });
    expect(entry).not.toHaveProperty('privateKey');
    const exported = await api('POST', `/addresses/export/${row.address}`, { json: { password: PASSWORD } });
    expect(exported.status, exported.text).toBe(422);
    expect(exported.body.message).toBe(
      `Address ${row.address} is unsecure: its private key was never stored, sign with privatekey`,
    );

    const withPassword = await api('POST', '/addresses', { json: { password: PASSWORD } });
    expect(withPassword.status, withPassword.text).toBe(201);
    expect(Object.keys(withPassword.body.data[0]).sort()).toEqual(['address', 'publicKey']);
  });

  it('a send signed with a private key given in the CLI form; another key is refused', async () => {
    const { keypair, address } = newKey();
    await context.devnet.airdrop(address, LAMPORTS_PER_SOL);
    const to = newKey().address;
    const sent = await api('POST', '/transactions', {
      json: { from: address, to, amount: '0.25', privatekey: JSON.stringify(Array.from(keypair.secretKey)) },
    });
    expect(sent.status, sent.text).toBe(201);
    const wrong = await api('POST', '/transactions', {
      json: { from: address, to, amount: '0.25', privatekey: newKey().secretKey },
    });
    expect(wrong.status, wrong.text).toBe(422);
    expect(wrong.body.message).toBe(`The private key does not belong to ${address}`);
    await context.devnet.advance(1);
    expect(await lamportsOf(context, to)).toBe(250_000_000n);
    expect(await lamportsOf(context, address)).toBe(750_000_000n - 5000n);
  });
});
