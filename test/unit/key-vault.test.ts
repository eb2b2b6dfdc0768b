import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_KDF_COST } from '../../src/custody/kdf-cost.ts';
import { openKey, type SealedKey, sealKey, WrongPasswordError } from '../../src/custody/key-vault.ts';

describe('key vault', () => {
  const secret = randomBytes(32);

  it('seals with scrypt at N=2^17 and AES-256-GCM, random salt and nonce, and opens with the password', async () => {
    const stored = await sealKey(secret, 'correct horse battery', 'user|tron|mainnet|T1');
    const sealed = JSON.parse(stored) as SealedKey;
    expect(sealed).toMatchObject({ v: 1, kdf: 'scrypt', n: 2 ** 17, r: 8, p: 1 });
    expect(Buffer.from(sealed.salt, 'base64')).toHaveLength(16);
    expect(Buffer.from(sealed.nonce, 'base64')).toHaveLength(12);
    expect(stored).not.toContain(secret.toString('hex'));
    expect(stored).not.toContain(secret.toString('base64'));
    const opened = await openKey(stored, 'correct horse battery', 'user|tron|mainnet|T1');
    expect(opened.equals(secret)).toBe(true);
    const again = JSON.parse(
      await sealKey(secret, 'correct horse battery', 'user|tron|mainnet|T1'),
    ) as SealedKey;
    expect(again.salt).not.toBe(sealed.salt);
    expect(again.ciphertext).not.toBe(sealed.ciphertext);
  });

  it('refuses a wrong password, another binding and a tampered ciphertext', async () => {
    // Not about the cost: sealed at the test cost, opened at the cost it carries.
    const stored = await sealKey(
      secret,
      'correct horse battery',
      'user|tron|mainnet|T1',
      {},
      TEST_KDF_COST.sealedKeys,
    );
    await expect(openKey(stored, 'correct horse battery!', 'user|tron|mainnet|T1')).rejects.toBeInstanceOf(
      WrongPasswordError,
    );
    await expect(openKey(stored, 'correct horse battery', 'other|tron|mainnet|T1')).rejects.toBeInstanceOf(
      WrongPasswordError,
    );
    const sealed = JSON.parse(stored) as SealedKey;
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0]! ^= 1;
    const tampered = JSON.stringify({ ...sealed, ciphertext: flipped.toString('base64') });
    await expect(openKey(tampered, 'correct horse battery', 'user|tron|mainnet|T1')).rejects.toBeInstanceOf(
      WrongPasswordError,
    );
  });

  it('keeps the event loop free while deriving', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    await sealKey(secret, 'correct horse battery', 'b');
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(3);
  });
});
