import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The server's master key seals secrets the gateway itself must use later (webhook signing secrets), so
 * none sits in the database in plain text. It comes from MASTER_KEY (base64, 32 bytes) or, failing that,
 * from `<data dir>/master.key`, created on first start with owner-only permissions. Losing it loses those
 * secrets (subscriptions keep working once their secrets are rotated).
 */
export class MasterKey {
  private constructor(private readonly key: Buffer) {}

  static load(base64: string | undefined, dataDir: string): MasterKey {
    if (base64 !== undefined) {
      const key = Buffer.from(base64, 'base64');
      if (key.length !== 32) throw new Error('MASTER_KEY must be 32 bytes, base64 encoded');
      return new MasterKey(key);
    }
    const file = path.join(dataDir, 'master.key');
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} must hold 32 bytes, base64 encoded`);
    return new MasterKey(key);
  }

  /** AES-256-GCM with a random nonce; `context` (e.g. the row id) must match to open. */
  seal(plaintext: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${nonce.toString('base64')}.${Buffer.concat([body, cipher.getAuthTag()]).toString('base64')}`;
  }

  /**
   * HMAC-SHA256 of `text` under a key derived for `purpose`: a digest that can be compared but, unlike a
   * plain hash, not brute-forced from a copy of the database (the text may hold a wallet password).
   */
  digest(text: string, purpose: string): string {
    const key = Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `switchyard:${purpose}`, 32));
    return createHmac('sha256', key).update(text, 'utf8').digest('base64url');
  }

  open(sealed: string, context: string): string {
    const [version, nonce, data] = sealed.split('.');
    if (version !== 'v1' || nonce === undefined || data === undefined)
      throw new Error('unknown sealed secret format');
    const bytes = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
      'utf8',
    );
  }
}
