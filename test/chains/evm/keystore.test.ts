import { createDecipheriv } from 'node:crypto';
import { scrypt } from '@noble/hashes/scrypt.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  EvmInputError,
  exportKeystore,
  importKeystore,
  keystoreDerivedKey,
  keystoreFilename,
} from '../../../src/chains/evm/index.ts';
import { WrongPasswordError } from '../../../src/custody/key-vault.ts';

// Web3 Secret Storage Definition test vectors (ethereum wiki; also go-ethereum's
// accounts/keystore/testdata/v3_test_vector.json). Password "testpassword" for both.
const WIKI_SECRET = '7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d';
const WIKI_ADDRESS = '0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b';

const wikiPbkdf2 = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '6087dab2f9fdbbfaddc31a909735c1e6' },
    ciphertext: '5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46',
    kdf: 'pbkdf2',
    kdfparams: {
      c: 262144,
      dklen: 32,
      prf: 'hmac-sha256',
      salt: 'ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd',
    },
    mac: '517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};

const wikiScrypt = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: '83dbcc02d8ccb40e466191a123791e0e' },
    ciphertext: 'd172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c',
    kdf: 'scrypt',
    kdfparams: {
      dklen: 32,
      n: 262144,
      r: 1,
      p: 8,
      salt: 'ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19',
    },
    mac: '2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097',
  },
  id: '3198bc9c-6672-5ab3-d995-4942343ae5b6',
  version: 3,
};

// Written by geth (accounts/keystore/testdata/keystore/aaa, password "foobar").
const gethAaa =
  '{"address":"f466859ead1932d743d622cb74fc058882e8648a","crypto":{"cipher":"aes-128-ctr","ciphertext":"cb664472deacb41a2e995fa7f96fe29ce744471deb8d146a0e43c7898c9ddd4d","cipherparams":{"iv":"dfd9ee70812add5f4b8f89d0811c9158"},"kdf":"scrypt","kdfparams":{"dklen":32,"n":8,"p":16,"r":8,"salt":"0d6769bf016d45c479213990d6a08d938469c4adad8a02ce507b4a4e7b7739f1"},"mac":"bac9af994b15a45dd39669fc66f9aa8a3b9dd8c22cb16e4d8d7ea089d0f1a1a9"},"id":"472e8b3d-afb6-45b5-8111-72c89895099a","version":3}';

// geth's testdata/very-light-scrypt.json, empty password.
const gethVeryLight = {
  address: '45dea0fb0bba44f4fcf290bba71fd57d7117cbb8',
  crypto: {
    cipher: 'aes-128-ctr',
    ciphertext: 'b87781948a1befd247bff51ef4063f716cf6c2d3481163e9a8f42e1f9bb74145',
    cipherparams: { iv: 'dc4926b48a105133d2f16b96833abf1e' },
    kdf: 'scrypt',
    kdfparams: {
      dklen: 32,
      n: 2,
      p: 1,
      r: 8,
      salt: '004244bbdc51cadda545b1cfa43cff9ed2ae88e08c61f1479dbb45410722f8f0',
    },
    mac: '39990c1684557447940d4c69e06b1b82b2aceacb43f284df65c956daf3046b85',
  },
  id: 'ce541d8d-c79b-40f8-9f8c-20f59616faba',
  version: 3,
};

// geth's v3_test_vector.json "31_byte_key": a key with a leading zero byte, stored as 31 bytes.
const geth31Byte = {
  crypto: {
    cipher: 'aes-128-ctr',
    cipherparams: { iv: 'e0c41130a323adc1446fc82f724bca2f' },
    ciphertext: '9517cd5bdbe69076f9bf5057248c6c050141e970efa36ce53692d5d59a3984',
    kdf: 'scrypt',
    kdfparams: {
      dklen: 32,
      n: 2,
      r: 8,
      p: 1,
      salt: '711f816911c92d649fb4c84b047915679933555030b3552c1212609b38208c63',
    },
    mac: 'd5e116151c6aa71470e67a7d42c9620c75c4d23229847dcc127794f0732b0db5',
  },
  id: 'fecfc4ce-e956-48fd-953b-30f8b52ed66c',
  version: 3,
};

// Written by ethers 6.17 (encryptKeystoreJson, N=1024): note the capitalised "Crypto".
const ethersKeystore =
  '{"address":"70997970c51812dc3a010c7d01b50e0d17dc79c8","id":"4c21353e-4aed-4a09-85fb-1ff3f576a284","version":3,"Crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"dd67b60ee575963676f5add5065136d4"},"ciphertext":"8e5dbd93faf681a6370a95899079adfab9bcb16427f2be39009b7dd38dff5b83","kdf":"scrypt","kdfparams":{"salt":"fb19175f76f44cd482b697d2c471003a30dce17d00b409589be422e5fdb37c22","n":1024,"dklen":32,"p":1,"r":8},"mac":"90975f02d69aeaafacfec391dcc51d61b3c783c361371fe5aa23bea2db05a9f3"}}';

describe('keystore import: published vectors', () => {
  it('opens the Web3 Secret Storage PBKDF2 vector: derived key and private key', async () => {
    const derived = await keystoreDerivedKey(wikiPbkdf2, 'testpassword');
    expect(bytesToHex(derived)).toBe('f06d69cdc7da0faffb1008270bca38f5e31891a3a773950e6d0fea48a7188551');
    const pair = await importKeystore(wikiPbkdf2, 'testpassword');
    expect(pair.privateKey).toBe(WIKI_SECRET);
    expect(pair.address).toBe(WIKI_ADDRESS);
  });

  it('opens the Web3 Secret Storage scrypt vector (N=2^18, r=1, which OpenSSL refuses)', async () => {
    const derived = await keystoreDerivedKey(JSON.stringify(wikiScrypt), 'testpassword');
    expect(bytesToHex(derived)).toBe('fac192ceb5fd772906bea3e118a69e8bbb5cc24229e20d8766fd298291bba6bd');
    const pair = await importKeystore(JSON.stringify(wikiScrypt), 'testpassword');
    expect(pair.privateKey).toBe(WIKI_SECRET);
    // Two derivations at 256 MiB in JavaScript: seconds alone, far more on a busy machine.
  }, 120_000);

  it('opens keystores as geth writes them, short keys included', async () => {
    expect((await importKeystore(gethAaa, 'foobar')).address.toLowerCase()).toBe(
      '0xf466859ead1932d743d622cb74fc058882e8648a',
    );
    expect((await importKeystore(gethVeryLight, '')).address.toLowerCase()).toBe(
      '0x45dea0fb0bba44f4fcf290bba71fd57d7117cbb8',
    );
    const short = await importKeystore(geth31Byte, 'foo');
    expect(short.privateKey).toBe('00fa7b3db73dc7dfdf8c5fbdb796d741e4488628c41fc4febd9160a866ba0f35');
  });

  it('opens a keystore as ethers writes it', async () => {
    const pair = await importKeystore(ethersKeystore, 'correct horse battery staple');
    expect(pair.address).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(pair.privateKey).toBe('59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
  });

  it('refuses a wrong password with WrongPasswordError', async () => {
    await expect(importKeystore(wikiPbkdf2, 'testpassword!')).rejects.toBeInstanceOf(WrongPasswordError);
    await expect(importKeystore(ethersKeystore, '')).rejects.toThrow('Wrong password provided');
  });

  it('refuses what is not a v3 keystore it can open, without echoing the password', async () => {
    const cases: unknown[] = [
      'not json',
      '[]',
      { ...wikiPbkdf2, version: 1 },
      { ...wikiPbkdf2, crypto: { ...wikiPbkdf2.crypto, cipher: 'aes-128-cbc' } },
      { ...wikiPbkdf2, crypto: { ...wikiPbkdf2.crypto, kdf: 'argon2' } },
      {
        ...wikiPbkdf2,
        crypto: { ...wikiPbkdf2.crypto, kdfparams: { ...wikiPbkdf2.crypto.kdfparams, prf: 'hmac-sha512' } },
      },
      { ...wikiPbkdf2, crypto: { ...wikiPbkdf2.crypto, mac: 'zz' } },
      // A crafted file asking for 2^30 scrypt rounds (128 GiB) is refused before any work.
      {
        ...wikiScrypt,
        crypto: { ...wikiScrypt.crypto, kdfparams: { ...wikiScrypt.crypto.kdfparams, n: 2 ** 30 } },
      },
      {
        ...wikiScrypt,
        crypto: { ...wikiScrypt.crypto, kdfparams: { ...wikiScrypt.crypto.kdfparams, n: 1000 } },
      },
      // An address that is not the key's.
      { ...wikiPbkdf2, address: 'f466859ead1932d743d622cb74fc058882e8648a' },
      // Numbers that are objects which cannot even be turned into text.
      {
        ...wikiScrypt,
        crypto: { ...wikiScrypt.crypto, kdfparams: { ...wikiScrypt.crypto.kdfparams, n: { toString: 'x' } } },
      },
      { ...wikiPbkdf2, version: { valueOf: 'x' } },
      {
        ...wikiPbkdf2,
        crypto: { ...wikiPbkdf2.crypto, kdfparams: { ...wikiPbkdf2.crypto.kdfparams, c: '0x10' } },
      },
    ];
    for (const content of cases) {
      const error = await importKeystore(content, 'testpassword').then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(content).slice(0, 80)).toBeInstanceOf(EvmInputError);
      expect((error as Error).message).not.toContain('testpassword');
    }
  });
});

describe('keystore export', () => {
  const key = '4646464646464646464646464646464646464646464646464646464646464646';
  const address = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F';

  it('writes scrypt N=2^17 r=8 p=1 + aes-128-ctr + keccak MAC that @noble and viem open independently', async () => {
    const now = new Date('2024-05-06T07:08:09.123Z');
    const { filename, content } = await exportKeystore(`0x${key}`, 'hunter2 hunter2', { now });
    expect(filename).toBe(`UTC--2024-05-06T07-08-09.123Z--${address.slice(2).toLowerCase()}`);
    expect(content.version).toBe(3);
    expect(content.address).toBe(address.slice(2).toLowerCase());
    expect(content.id).toMatch(/^[0-9a-f-]{36}$/);
    const { crypto } = content;
    expect(crypto.cipher).toBe('aes-128-ctr');
    expect(crypto.kdf).toBe('scrypt');
    expect(crypto.kdfparams).toMatchObject({ n: 131072, r: 8, p: 1, dklen: 32 });
    expect(crypto.kdfparams.salt).toMatch(/^[0-9a-f]{64}$/);
    expect(crypto.cipherparams.iv).toMatch(/^[0-9a-f]{32}$/);

    // Independent decryption: noble scrypt, keccak MAC, AES-CTR, viem for the address.
    const derived = scrypt(new TextEncoder().encode('hunter2 hunter2'), hexToBytes(crypto.kdfparams.salt), {
      N: crypto.kdfparams.n,
      r: crypto.kdfparams.r,
      p: crypto.kdfparams.p,
      dkLen: 32,
    });
    const ciphertext = hexToBytes(crypto.ciphertext);
    expect(bytesToHex(keccak_256(concatBytes(derived.subarray(16, 32), ciphertext)))).toBe(crypto.mac);
    const decipher = createDecipheriv(
      'aes-128-ctr',
      derived.subarray(0, 16),
      hexToBytes(crypto.cipherparams.iv),
    );
    const secret = Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('hex');
    expect(secret).toBe(key);
    expect(privateKeyToAccount(`0x${secret}`).address).toBe(address);

    // And it round-trips through the importer, from the file text.
    expect((await importKeystore(JSON.stringify(content), 'hunter2 hunter2')).address).toBe(address);
    await expect(importKeystore(content, 'hunter3 hunter3')).rejects.toBeInstanceOf(WrongPasswordError);
  }, 60_000); // several derivations at the production cost (128 MiB each)

  it('salts every export differently', async () => {
    const a = await exportKeystore(key, 'same password');
    const b = await exportKeystore(key, 'same password');
    expect(a.content.crypto.kdfparams.salt).not.toBe(b.content.crypto.kdfparams.salt);
    expect(a.content.crypto.ciphertext).not.toBe(b.content.crypto.ciphertext);
  });

  it('names files as geth does', () => {
    expect(
      keystoreFilename('0xABCDEF0123456789abcdef0123456789ABCDEF01', new Date('2016-03-22T12:57:55.920Z')),
    ).toBe('UTC--2016-03-22T12-57-55.920Z--abcdef0123456789abcdef0123456789abcdef01');
  });
});
