import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { KeyCodec } from '../chains/key-codec.ts';
import type { ChainKeyPair } from '../chains/types.ts';
import { ApiError, invalidField } from '../errors.ts';
import type { AddressesTable, Database } from '../store/schema.ts';
import { WrongPasswordError } from './key-vault.ts';
import { OwnedSecretStore, ownerColumns, type SecretOwner } from './owned-secrets.ts';

export interface KeyScope extends SecretOwner {
  codec: KeyCodec;
}

export interface StoredAddress {
  address: string;
  publicKey: string;
  secured: boolean;
  createdAt: string;
}

/** How a caller proves they may sign for an address: the address's password, or the private key itself. */
export interface SigningProof {
  password?: string | undefined;
  privatekey?: string | undefined;
}

export class KeyMismatchError extends Error {
  constructor(readonly signer: string) {
    super(`private key belongs to ${signer}`);
    this.name = 'KeyMismatchError';
  }
}

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * Custodial addresses per user, chain and network. A password-protected key is sealed (key-vault) and
 * usable only by its owner with that password; an unsecure address keeps no key at all: its private key
 * is returned once and the caller signs with it. Every attempt to open a key with a password passes the
 * throttle first (too many wrong ones answer 429 without deriving), and every key derivation takes the
 * user's turn on the KDF scheduler. Addresses derived from an HD wallet (hd-wallets.ts) share the table,
 * the uniqueness and the quota, but are listed, opened and deleted through their wallet.
 */
export class AddressKeys extends OwnedSecretStore {
  /** Creates a key pair; with a password the key is kept sealed, without one it is only returned. */
  async create(scope: KeyScope, password?: string): Promise<ChainKeyPair> {
    const pair = scope.codec.generate();
    await this.store(scope, pair, password);
    return pair;
  }

  async import(scope: KeyScope, privateKey: string, password?: string): Promise<ChainKeyPair> {
    let pair: ChainKeyPair;
    try {
      pair = scope.codec.fromPrivateKey(privateKey);
    } catch {
      throw invalidField(
        'privatekey',
        `The privatekey field must be a valid private key (${scope.codec.privateKeyForm}).`,
      );
    }
    await this.store(scope, pair, password);
    return pair;
  }

  private async store(scope: KeyScope, pair: ChainKeyPair, password?: string): Promise<void> {
    if (password !== undefined) assertPasswordStrength('password', password);
    const address = scope.codec.normalizeAddress(pair.address);
    const sealed =
      password === undefined
        ? null
        : await this.seal(Buffer.from(pair.privateKey, 'hex'), password, scope, address);
    const now = this.now().toISOString();
    await this.db.transaction().execute(async (trx) => {
      await this.quotas.assertCapacity(scope.userId, 'addresses', trx);
      const existing = await this.find(trx, scope, address);
      if (existing) throw new ApiError(422, `Address ${address} already exists in your account`);
      await insertAddress(trx, scope, { address, public_key: pair.publicKey, sealed_key: sealed }, now);
    });
  }

  async list(owner: SecretOwner): Promise<StoredAddress[]> {
    const rows = await this.db
      .selectFrom('addresses')
      .select(['address', 'public_key', 'sealed_key', 'created_at'])
      .where((eb) => eb.and(ownerColumns(owner)))
      .where('wallet_id', 'is', null)
      .orderBy('created_at')
      .orderBy('address')
      .execute();
    return rows.map((r) => ({
      address: r.address,
      publicKey: r.public_key,
      secured: r.sealed_key !== null,
      createdAt: r.created_at,
    }));
  }

  /**
   * Forgets an address and its key. Returns false when the caller has no such address; an address derived
   * from an HD wallet goes only with its wallet.
   */
  async remove(scope: KeyScope, address: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('addresses')
      .where((eb) => eb.and(ownerColumns(scope)))
      .where('address', '=', scope.codec.normalizeAddress(address))
      .where('wallet_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Re-seals the key under a new password; the old one must open it. */
  async changePassword(
    scope: KeyScope,
    address: string,
    oldPassword: string,
    newPassword: string,
  ): Promise<void> {
    assertPasswordStrength('new_password', newPassword);
    const normalized = scope.codec.normalizeAddress(address);
    const secret = await this.unseal(scope, normalized, oldPassword);
    const sealed = await this.seal(secret, newPassword, scope, normalized);
    await this.db
      .updateTable('addresses')
      .set({ sealed_key: sealed, updated_at: this.now().toISOString() })
      .where((eb) => eb.and(ownerColumns(scope)))
      .where('address', '=', normalized)
      .execute();
  }

  /** The private key (hex) of a stored address, opened with its password. */
  async exportKey(scope: KeyScope, address: string, password: string): Promise<string> {
    const normalized = scope.codec.normalizeAddress(address);
    return (await this.unseal(scope, normalized, password)).toString('hex');
  }

  /**
   * The key to sign for `from` with, once the caller has proven they may: the password of a key this user
   * stored, or a private key whose address is `from` (KeyMismatchError otherwise).
   */
  async signingKey(scope: KeyScope, from: string, proof: SigningProof): Promise<string> {
    const normalized = scope.codec.normalizeAddress(from);
    if (proof.privatekey !== undefined && proof.privatekey !== '') {
      let pair: ChainKeyPair;
      try {
        pair = scope.codec.fromPrivateKey(proof.privatekey);
      } catch {
        throw invalidField(
          'privatekey',
          `The privatekey field must be a valid private key (${scope.codec.privateKeyForm}).`,
        );
      }
      const signer = scope.codec.normalizeAddress(pair.address);
      if (signer !== normalized) throw new KeyMismatchError(signer);
      return pair.privateKey;
    }
    if (proof.password === undefined || proof.password === '') {
      throw invalidField('password', 'Either password (for a stored address) or privatekey is required.');
    }
    return (await this.unseal(scope, normalized, proof.password)).toString('hex');
  }

  /** Opens the sealed key of a single-key address, through the throttle (throttled-open.ts). */
  private unseal(scope: KeyScope, address: string, password: string): Promise<Buffer> {
    return this.open(scope, address, password, async () => {
      const row = await this.find(this.db, scope, address);
      if (!row) throw new ApiError(404, `Address ${address} not found in your account`);
      if (row.wallet_id !== null) {
        throw new ApiError(
          422,
          `Address ${address} belongs to an HD wallet: its key opens with the wallet's password`,
        );
      }
      if (row.sealed_key === null) {
        throw new ApiError(
          422,
          `Address ${address} is unsecure: its private key was never stored, sign with privatekey`,
        );
      }
      return row.sealed_key;
    });
  }

  private find(db: Kysely<Database>, owner: SecretOwner, address: string) {
    return db
      .selectFrom('addresses')
      .select(['id', 'sealed_key', 'wallet_id'])
      .where((eb) => eb.and(ownerColumns(owner)))
      .where('address', '=', address)
      .executeTakeFirst();
  }
}

/** The row an address is stored in: a single key (sealed, or none kept) or one derived from an HD wallet. */
type AddressFields = Pick<
  Insertable<AddressesTable>,
  'address' | 'public_key' | 'sealed_key' | 'wallet_id' | 'derivation_index'
>;

/** Stores an address of `owner`, created now. */
export async function insertAddress(
  db: Kysely<Database>,
  owner: SecretOwner,
  fields: AddressFields,
  now: string,
): Promise<void> {
  await db
    .insertInto('addresses')
    .values({ id: randomUUID(), ...ownerColumns(owner), ...fields, created_at: now, updated_at: now })
    .execute();
}

export function assertPasswordStrength(field: string, password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw invalidField(
      field,
      `The ${field} field must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long.`,
    );
  }
}

export { WrongPasswordError };
