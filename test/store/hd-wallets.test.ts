import { secp256k1 } from '@noble/curves/secp256k1.js';
import { mnemonicToSeedSync } from '@scure/bip39';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncPlans } from '../../src/accounts/plans.ts';
import { QuotaService } from '../../src/accounts/quotas.ts';
import { UserDirectory } from '../../src/accounts/users.ts';
import { loadConfig } from '../../src/config.ts';
import { AddressKeys, type KeyScope } from '../../src/custody/address-keys.ts';
import { type HdKeyCodec, type HdScope, HdWallets } from '../../src/custody/hd-wallets.ts';
import { TEST_KDF_COST } from '../../src/custody/kdf-cost.ts';
import { WrongPasswordError } from '../../src/custody/key-vault.ts';
import { PasswordThrottle } from '../../src/custody/password-throttle.ts';
import type { Store } from '../../src/store/store.ts';
import { freshDatabase, testDatabase } from '../helpers/gateway.ts';
import { p2wpkhAddress } from '../helpers/p2wpkh.ts';
import { openMigratedStore } from '../helpers/test-store.ts';

// BIP-84's own test vectors: its mnemonic, root key, account 0 key and first receive addresses.
const MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const ROOT_ZPRV =
  'zprvAWgYBBk7JR8Gjrh4UJQ2uJdG1r3WNRRfURiABBE3RvMXYSrRJL62XuezvGdPvG6GFBZduosCc1YP5wixPox7zhZLfiUm8aunE96BBa4Kei5';
const ACCOUNT_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const RECEIVE = [
  {
    address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    publicKey: '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c',
    privateKey: '4604b4b710fe91f584fff084e1a9159fe4f8408fff380596a604948474ce4fa3',
  },
  {
    address: 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
    publicKey: '03e775fd51f0dfb8cd865d9ff1cca2a158cf651fe997fdc9fee9c1d3b5e995ea77',
    privateKey: '2fd0affa51529f940a358ec0c50de81267d0bf5158ca61887347676946362c5b',
  },
];
const PASSWORD = 'correct horse battery';

/** BIP-84 on Bitcoin mainnet, with BIP-84's zprv/zpub serialization so its published keys compare. */
const bip84: HdKeyCodec = {
  accountPath: (account) => `m/84'/0'/${account}'`,
  addressPath: (index) => `0/${index}`,
  addressOf: (publicKey) => p2wpkhAddress('bc', publicKey),
  normalizeAddress: (address) => address.toLowerCase(),
  versions: { private: 0x04b2430c, public: 0x04b24746 },
};

/** Single-key P2WPKH addresses, to show they share the table and the quota with derived ones. */
const singleKey: KeyScope['codec'] = {
  privateKeyForm: '64 hex characters',
  generate: () => singleKey.fromPrivateKey(Buffer.from(secp256k1.utils.randomSecretKey()).toString('hex')),
  fromPrivateKey: (privateKey) => {
    const publicKey = secp256k1.getPublicKey(Buffer.from(privateKey, 'hex'), true);
    return {
      address: p2wpkhAddress('bc', publicKey),
      publicKey: Buffer.from(publicKey).toString('hex'),
      privateKey,
    };
  },
  normalizeAddress: (address) => address.toLowerCase(),
};

const database = freshDatabase();
let store: Store;
let users: UserDirectory;
let wallets: HdWallets;
let addressKeys: AddressKeys;

beforeAll(async () => {
  const config = loadConfig(database.env);
  store = await openMigratedStore(database);
  await syncPlans(store.db, [
    ...config.plans,
    {
      name: 'tiny',
      period: 'month',
      quotas: { webhooks: 1, addresses: 3, requests: null, transactions: null },
      rate: null,
      sponsored: null,
    },
  ]);
  users = new UserDirectory(store.db, config.defaultPlan);
  const quotas = new QuotaService(store.db, store.dialect);
  // Two wrong passwords lock a key here, so the lockout is reached with few scrypt runs.
  const throttle = new PasswordThrottle(store.db, {
    maxFailuresPerAddress: 2,
    maxFailuresPerUser: 50,
    windowSeconds: 900,
    lockoutSeconds: 60,
    maxLockoutSeconds: 3600,
  });
  // Seeds and keys sealed at the test cost: these tests are about wallets, not the derivation.
  const now = () => new Date();
  wallets = new HdWallets(store.db, quotas, throttle, now, TEST_KDF_COST.sealedKeys);
  addressKeys = new AddressKeys(store.db, quotas, throttle, now, TEST_KDF_COST.sealedKeys);
});

afterAll(async () => {
  await store.close();
  await database.drop();
});

async function scopeOfNewUser(plan?: string): Promise<HdScope> {
  const user = await users.createUser(`u${Math.random().toString(36).slice(2)}@example.com`, plan);
  return { userId: user.id, chain: 'bitcoin', network: 'mainnet', codec: bip84 };
}

describe(`HD wallets on ${testDatabase()}`, () => {
  it("restores BIP-84's wallet and derives its receive addresses by index, without the password", async () => {
    const scope = await scopeOfNewUser();
    const created = await wallets.create(scope, {
      name: 'vectors',
      label: 'BIP-84',
      password: PASSWORD,
      mnemonic: MNEMONIC,
    });
    expect(created).toMatchObject({
      name: 'vectors',
      label: 'BIP-84',
      accountPath: "m/84'/0'/0'",
      nextIndex: 0,
    });
    const row = await store.db
      .selectFrom('wallets')
      .select('account_xpub')
      .where('name', '=', 'vectors')
      .executeTakeFirstOrThrow();
    expect(row.account_xpub).toBe(ACCOUNT_ZPUB);

    const derived = [];
    for (let i = 0; i < 3; i++) derived.push(await wallets.deriveAddress(scope, 'vectors'));
    expect(derived.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(derived.map((d) => d.path)).toEqual(["m/84'/0'/0'/0/0", "m/84'/0'/0'/0/1", "m/84'/0'/0'/0/2"]);
    expect(derived.slice(0, 2).map((d) => ({ address: d.address, publicKey: d.publicKey }))).toEqual(
      RECEIVE.map(({ address, publicKey }) => ({ address, publicKey })),
    );
    expect(derived[2]!.address).toBe(p2wpkhAddress('bc', Buffer.from(derived[2]!.publicKey, 'hex')));
    expect(await wallets.addresses(scope, 'vectors')).toEqual(derived);
    expect((await wallets.get(scope, 'vectors')).nextIndex).toBe(3);
    expect((await wallets.list(scope)).map((w) => w.name)).toEqual(['vectors']);

    // Signing keys open with the password, once for several addresses.
    const keys = await wallets.signingKeys(
      scope,
      'vectors',
      PASSWORD,
      RECEIVE.map((r) => r.address.toUpperCase()),
    );
    expect(
      keys.map((k) => ({ address: k.address, publicKey: k.publicKey, privateKey: k.privateKey })),
    ).toEqual(RECEIVE);
    await expect(
      wallets.signingKeys(scope, 'vectors', PASSWORD, [p2wpkhAddress('bc', new Uint8Array(33).fill(2))]),
    ).rejects.toMatchObject({ status: 404 });

    // Export gives back what restores the wallet anywhere, and only with the password.
    const secret = await wallets.exportSecret(scope, 'vectors', PASSWORD);
    expect(secret).toEqual({ mnemonic: MNEMONIC, xprv: ROOT_ZPRV, accountPath: "m/84'/0'/0'" });
    await expect(wallets.exportSecret(scope, 'vectors', 'not the password')).rejects.toBeInstanceOf(
      WrongPasswordError,
    );
  });

  it('keeps nothing plain: neither the mnemonic, its entropy, the seed nor a derived private key', async () => {
    const scope = await scopeOfNewUser();
    await wallets.create(scope, { name: 'fresh', password: PASSWORD });
    const derived = await wallets.deriveAddress(scope, 'fresh');
    const { mnemonic, xprv } = await wallets.exportSecret(scope, 'fresh', PASSWORD);
    expect(mnemonic.split(' ')).toHaveLength(24);
    const [key] = await wallets.signingKeys(scope, 'fresh', PASSWORD, [derived.address]);
    const seed = Buffer.from(mnemonicToSeedSync(mnemonic));
    const secrets = [mnemonic, xprv, seed.toString('hex'), seed.toString('base64'), key!.privateKey];
    // Runs of its words, two at a time: one word alone ('coin', 'bit') can be in any stored text.
    const words = mnemonic.split(' ');
    for (let i = 0; i < 3; i++) secrets.push(words.slice(i, i + 2).join(' '));

    const walletRow = await store.db
      .selectFrom('wallets')
      .selectAll()
      .where('user_id', '=', scope.userId)
      .execute();
    const addressRows = await store.db
      .selectFrom('addresses')
      .selectAll()
      .where('user_id', '=', scope.userId)
      .execute();
    expect(addressRows).toEqual([expect.objectContaining({ sealed_key: null, derivation_index: 0 })]);
    const stored = JSON.stringify([walletRow, addressRows]);
    for (const secret of secrets) expect(stored).not.toContain(secret);
    expect(JSON.parse(walletRow[0]!.sealed_seed)).toMatchObject({ v: 1, kdf: 'scrypt' });
  });

  it('counts a wrong password, then refuses the wallet with 429 before deriving', async () => {
    const scope = await scopeOfNewUser();
    await wallets.create(scope, { name: 'guarded', password: PASSWORD });
    for (let i = 0; i < 2; i++) {
      await expect(wallets.exportSecret(scope, 'guarded', 'wrong password')).rejects.toBeInstanceOf(
        WrongPasswordError,
      );
    }
    await expect(wallets.exportSecret(scope, 'guarded', PASSWORD)).rejects.toMatchObject({
      status: 429,
      message: expect.stringMatching(/^Too many wrong passwords for this wallet; try again in \d+ seconds$/),
    });
    await expect(wallets.signingKeys(scope, 'guarded', PASSWORD, [])).rejects.toMatchObject({ status: 429 });
    // Deriving needs no password, so a locked wallet still hands out addresses.
    expect((await wallets.deriveAddress(scope, 'guarded')).index).toBe(0);
  });

  it('changes the password: the old one stops opening the seed, the new one opens it', async () => {
    const scope = await scopeOfNewUser();
    await wallets.create(scope, { name: 'moving', password: PASSWORD, mnemonic: MNEMONIC });
    await expect(wallets.changePassword(scope, 'moving', PASSWORD, 'short')).rejects.toMatchObject({
      status: 422,
    });
    await wallets.changePassword(scope, 'moving', PASSWORD, 'a brand new password');
    await expect(wallets.exportSecret(scope, 'moving', PASSWORD)).rejects.toBeInstanceOf(WrongPasswordError);
    expect((await wallets.exportSecret(scope, 'moving', 'a brand new password')).mnemonic).toBe(MNEMONIC);
  });

  it('refuses a taken name, a bad mnemonic, a short password and an unknown wallet', async () => {
    const scope = await scopeOfNewUser();
    await wallets.create(scope, { name: 'taken', password: PASSWORD, mnemonic: MNEMONIC });
    await expect(wallets.create(scope, { name: 'taken', password: PASSWORD })).rejects.toMatchObject({
      status: 422,
      message: 'Wallet taken already exists in your account',
    });
    await expect(
      wallets.create(scope, {
        name: 'bad',
        password: PASSWORD,
        mnemonic: MNEMONIC.replace('about', 'abandon'),
      }),
    ).rejects.toMatchObject({ status: 422, errors: [{ field: 'mnemonic' }] });
    await expect(wallets.create(scope, { name: 'weak', password: 'short' })).rejects.toMatchObject({
      status: 422,
      errors: [{ field: 'password' }],
    });
    await expect(wallets.deriveAddress(scope, 'nobody')).rejects.toMatchObject({
      status: 404,
      message: 'Wallet nobody not found in your account',
    });
    // The same name on another network is another wallet.
    const testnet = { ...scope, network: 'testnet' as const };
    expect(
      (await wallets.create(testnet, { name: 'taken', password: PASSWORD, mnemonic: MNEMONIC })).name,
    ).toBe('taken');
  });

  it('gives 20 concurrent derives 20 distinct indexes and addresses', async () => {
    const scope = await scopeOfNewUser();
    await wallets.create(scope, { name: 'busy', password: PASSWORD, mnemonic: MNEMONIC });
    const derived = await Promise.all(Array.from({ length: 20 }, () => wallets.deriveAddress(scope, 'busy')));
    expect(derived.map((d) => d.index).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    expect(new Set(derived.map((d) => d.address)).size).toBe(20);
    for (const d of derived.filter((d) => d.index < 2)) expect(d.address).toBe(RECEIVE[d.index]!.address);
    expect((await wallets.get(scope, 'busy')).nextIndex).toBe(20);
    expect(await wallets.addresses(scope, 'busy')).toHaveLength(20);
  });

  it('counts derived addresses against the addresses quota like single-key ones, and gives a refused index back', async () => {
    const scope = await scopeOfNewUser('tiny');
    await addressKeys.create({ ...scope, codec: singleKey });
    await wallets.create(scope, { name: 'small', password: PASSWORD, mnemonic: MNEMONIC });
    await wallets.deriveAddress(scope, 'small');
    await wallets.deriveAddress(scope, 'small');
    await expect(wallets.deriveAddress(scope, 'small')).rejects.toMatchObject({
      status: 422,
      message: 'Your address limit exceeded. Please upgrade your plan',
    });
    expect((await wallets.get(scope, 'small')).nextIndex).toBe(2);
  });

  it('deletes a wallet with its derived addresses, and leaves single-key addresses alone', async () => {
    const scope = await scopeOfNewUser();
    const single = await addressKeys.create({ ...scope, codec: singleKey });
    await wallets.create(scope, { name: 'doomed', password: PASSWORD, mnemonic: MNEMONIC });
    await wallets.deriveAddress(scope, 'doomed');
    await wallets.deriveAddress(scope, 'doomed');
    // Single-key custody lists and deletes only its own rows.
    expect((await addressKeys.list(scope)).map((a) => a.address)).toEqual([single.address]);
    expect(await addressKeys.remove({ ...scope, codec: singleKey }, RECEIVE[0]!.address)).toBe(false);
    await expect(
      addressKeys.exportKey({ ...scope, codec: singleKey }, RECEIVE[0]!.address, PASSWORD),
    ).rejects.toMatchObject({ status: 422, message: expect.stringContaining('belongs to an HD wallet') });

    expect(await wallets.remove(scope, 'doomed')).toBe(true);
    expect(await wallets.remove(scope, 'doomed')).toBe(false);
    await expect(wallets.get(scope, 'doomed')).rejects.toMatchObject({ status: 404 });
    const left = await store.db
      .selectFrom('addresses')
      .select('address')
      .where('user_id', '=', scope.userId)
      .execute();
    expect(left).toEqual([{ address: single.address }]);
  });
});
