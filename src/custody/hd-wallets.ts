import { randomUUID } from 'node:crypto';
import { HARDENED_OFFSET, HDKey, type Versions } from '@scure/bip32';
import { ApiError, invalidField } from '../errors.ts';
import type { WalletsTable } from '../store/schema.ts';
import { assertPasswordStrength, insertAddress } from './address-keys.ts';
import { entropyOfMnemonic, mnemonicOf, newEntropy, rootNode } from './hd-seed.ts';
import { OwnedSecretStore, ownerColumns, type SecretOwner } from './owned-secrets.ts';

/**
 * What a chain family says about its HD wallets: where a wallet's account sits in the BIP-32 tree and
 * what address a derived key receives at. The wallet keeps the seed; the family keeps the paths and forms.
 */
export interface HdKeyCodec {
  /** The hardened account node a wallet's addresses hang from, e.g. m/84'/0'/0' (BIP-84, account 0). */
  accountPath(account: number): string;
  /**
   * Receive address `index` below the account node, e.g. 0/7. Non-hardened, so the account's extended
   * public key derives it and new addresses need no password.
   */
  addressPath(index: number): string;
  /** The address a derived public key (33-byte compressed) receives at. */
  addressOf(publicKey: Uint8Array): string;
  /** The canonical form an address is stored and compared in. */
  normalizeAddress(address: string): string;
  /** BIP-32 serialization versions (xprv/xpub, tprv/tpub ...); Bitcoin mainnet's when absent. */
  versions?: Versions;
}

export interface HdScope extends SecretOwner {
  codec: HdKeyCodec;
}

export interface NewWallet {
  name: string;
  label?: string | null | undefined;
  password: string;
  /** Restores a wallet from its BIP-39 mnemonic; a fresh 24-word one is made from crypto randomness when absent. */
  mnemonic?: string | undefined;
  /** The BIP-44 style account number; 0 when absent. */
  account?: number | undefined;
}

export interface StoredWallet {
  name: string;
  label: string | null;
  accountPath: string;
  /** The index the next derived address takes: also how many have been derived. */
  nextIndex: number;
  createdAt: string;
  updatedAt: string;
}

export interface DerivedAddress {
  address: string;
  /** Hex of the compressed public key. */
  publicKey: string;
  index: number;
  /** The full BIP-32 path, e.g. m/84'/0'/0'/0/7. */
  path: string;
  createdAt: string;
}

/** A derived address's key, opened with the wallet password to sign with. */
export interface DerivedKey {
  address: string;
  publicKey: string;
  /** Hex private key: never stored, only handed to the signer. */
  privateKey: string;
  index: number;
  path: string;
}

/** What a wallet's owner may take away with the password: enough to restore it anywhere. */
export interface WalletSecret {
  mnemonic: string;
  /** The root extended private key (BIP-32). */
  xprv: string;
  accountPath: string;
}

/**
 * HD wallets per user, chain and network: one seed, sealed with the wallet password (key-vault), and
 * addresses derived from it by index. Each derived address is a row of `addresses` pointing at its wallet,
 * so it counts against the addresses quota and can never be stored twice. New addresses come from the
 * account's extended public key, without the password; keys are opened only with it, through the same
 * throttle and KDF scheduler as single-key addresses.
 */
export class HdWallets extends OwnedSecretStore {
  async create(scope: HdScope, wallet: NewWallet): Promise<StoredWallet> {
    assertPasswordStrength('password', wallet.password);
    const account = wallet.account ?? 0;
    if (!Number.isSafeInteger(account) || account < 0 || account >= HARDENED_OFFSET) {
      throw invalidField('account', `The account field must be an integer from 0 to ${HARDENED_OFFSET - 1}.`);
    }
    const entropy = wallet.mnemonic === undefined ? newEntropy() : entropyOfMnemonic(wallet.mnemonic);
    if (entropy === null) {
      throw invalidField('mnemonic', 'The mnemonic field must be a valid BIP-39 mnemonic of English words.');
    }
    const id = randomUUID();
    const accountPath = scope.codec.accountPath(account);
    let accountXpub: string;
    let sealed: string;
    try {
      const root = await rootNode(entropy, scope.codec.versions);
      const accountNode = root.derive(accountPath);
      accountXpub = accountNode.publicExtendedKey;
      accountNode.wipePrivateData();
      root.wipePrivateData();
      sealed = await this.seal(entropy, wallet.password, scope, id);
    } finally {
      entropy.fill(0);
    }
    const now = this.now().toISOString();
    const row = {
      id,
      ...ownerColumns(scope),
      name: wallet.name,
      label: wallet.label ?? null,
      sealed_seed: sealed,
      account_path: accountPath,
      account_xpub: accountXpub,
      next_index: 0,
      created_at: now,
      updated_at: now,
    };
    // The unique index decides between concurrent creators of one name, without a constraint error.
    const inserted = await this.db
      .insertInto('wallets')
      .values(row)
      .onConflict((oc) => oc.columns(['user_id', 'chain', 'network', 'name']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted === undefined)
      throw new ApiError(422, `Wallet ${wallet.name} already exists in your account`);
    return summary(row);
  }

  async list(owner: SecretOwner): Promise<StoredWallet[]> {
    const rows = await this.db
      .selectFrom('wallets')
      .selectAll()
      .where((eb) => eb.and(ownerColumns(owner)))
      .orderBy('created_at')
      .orderBy('name')
      .execute();
    return rows.map(summary);
  }

  async get(owner: SecretOwner, name: string): Promise<StoredWallet> {
    return summary(await this.find(owner, name));
  }

  /**
   * The wallet's next receive address. The index is claimed by one UPDATE ... RETURNING inside the
   * transaction that checks the quota and stores the address, so concurrent derives never share an index
   * and a refused one (quota) gives its index back.
   */
  async deriveAddress(scope: HdScope, name: string): Promise<DerivedAddress> {
    return this.db.transaction().execute(async (trx) => {
      await this.quotas.assertCapacity(scope.userId, 'addresses', trx);
      const now = this.now().toISOString();
      const claimed = await trx
        .updateTable('wallets')
        .set((eb) => ({ next_index: eb('next_index', '+', 1), updated_at: now }))
        .where((eb) => eb.and({ ...ownerColumns(scope), name }))
        .returning(['id', 'account_path', 'account_xpub', 'next_index'])
        .executeTakeFirst();
      if (claimed === undefined) throw walletNotFound(name);
      const index = claimed.next_index - 1;
      const relative = scope.codec.addressPath(index);
      const node = HDKey.fromExtendedKey(claimed.account_xpub, scope.codec.versions).derive(`m/${relative}`);
      const address = scope.codec.normalizeAddress(scope.codec.addressOf(publicKeyOf(node)));
      const taken = await trx
        .selectFrom('addresses')
        .select('id')
        .where((eb) => eb.and({ ...ownerColumns(scope), address }))
        .executeTakeFirst();
      if (taken !== undefined) {
        throw new ApiError(422, `Address ${address} (index ${index}) already exists in your account`);
      }
      const publicKey = Buffer.from(publicKeyOf(node)).toString('hex');
      await insertAddress(
        trx,
        scope,
        { address, public_key: publicKey, sealed_key: null, wallet_id: claimed.id, derivation_index: index },
        now,
      );
      return { address, publicKey, index, path: `${claimed.account_path}/${relative}`, createdAt: now };
    });
  }

  /** The wallet's derived addresses, by index. */
  async addresses(scope: HdScope, name: string): Promise<DerivedAddress[]> {
    const wallet = await this.find(scope, name);
    const rows = await this.db
      .selectFrom('addresses')
      .select(['address', 'public_key', 'derivation_index', 'created_at'])
      .where('wallet_id', '=', wallet.id)
      .orderBy('derivation_index')
      .execute();
    return rows.map((r) => {
      const index = derivationIndex(r);
      return {
        address: r.address,
        publicKey: r.public_key,
        index,
        path: `${wallet.account_path}/${scope.codec.addressPath(index)}`,
        createdAt: r.created_at,
      };
    });
  }

  /**
   * The keys of some of the wallet's addresses, to sign a send that spends from them: the password is
   * checked (and the seed opened) once for all of them.
   */
  async signingKeys(
    scope: HdScope,
    name: string,
    password: string,
    addresses: string[],
  ): Promise<DerivedKey[]> {
    const wallet = await this.find(scope, name);
    const wanted: { address: string; index: number }[] = [];
    for (const given of addresses) {
      const address = scope.codec.normalizeAddress(given);
      const row = await this.db
        .selectFrom('addresses')
        .select('derivation_index')
        .where('wallet_id', '=', wallet.id)
        .where('address', '=', address)
        .executeTakeFirst();
      if (row === undefined) throw new ApiError(404, `Address ${address} not found in wallet ${name}`);
      wanted.push({ address, index: derivationIndex(row) });
    }
    const account = await this.openAccount(scope, wallet, password);
    try {
      return wanted.map(({ address, index }) => {
        const relative = scope.codec.addressPath(index);
        const node = account.derive(`m/${relative}`);
        const derived = scope.codec.normalizeAddress(scope.codec.addressOf(publicKeyOf(node)));
        // The row and the seed must agree; anything else is a corrupted row, never a key for another address.
        if (derived !== address) throw new Error(`wallet ${wallet.id} index ${index} derives ${derived}`);
        if (node.privateKey === null) throw new Error('derived node has no private key');
        const key = {
          address,
          publicKey: Buffer.from(publicKeyOf(node)).toString('hex'),
          privateKey: Buffer.from(node.privateKey).toString('hex'),
          index,
          path: `${wallet.account_path}/${relative}`,
        };
        node.wipePrivateData();
        return key;
      });
    } finally {
      account.wipePrivateData();
    }
  }

  /** The mnemonic and root xprv, opened with the wallet password. */
  async exportSecret(scope: HdScope, name: string, password: string): Promise<WalletSecret> {
    const wallet = await this.find(scope, name);
    const entropy = await this.unseal(scope, wallet, password);
    try {
      const root = await rootNode(entropy, scope.codec.versions);
      const xprv = root.privateExtendedKey;
      root.wipePrivateData();
      return { mnemonic: mnemonicOf(entropy), xprv, accountPath: wallet.account_path };
    } finally {
      entropy.fill(0);
    }
  }

  /** Re-seals the seed under a new password; the old one must open it. */
  async changePassword(
    owner: SecretOwner,
    name: string,
    oldPassword: string,
    newPassword: string,
  ): Promise<void> {
    assertPasswordStrength('new_password', newPassword);
    const wallet = await this.find(owner, name);
    const entropy = await this.unseal(owner, wallet, oldPassword);
    try {
      const sealed = await this.seal(entropy, newPassword, owner, wallet.id);
      await this.db
        .updateTable('wallets')
        .set({ sealed_seed: sealed, updated_at: this.now().toISOString() })
        .where('id', '=', wallet.id)
        .execute();
    } finally {
      entropy.fill(0);
    }
  }

  /** Forgets a wallet, its seed and (by the foreign key's cascade) its derived addresses. */
  async remove(owner: SecretOwner, name: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('wallets')
      .where((eb) => eb.and({ ...ownerColumns(owner), name }))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The wallet's account node with its private key; the caller wipes it. */
  private async openAccount(scope: HdScope, wallet: WalletsTable, password: string): Promise<HDKey> {
    const entropy = await this.unseal(scope, wallet, password);
    try {
      const root = await rootNode(entropy, scope.codec.versions);
      const account = root.derive(wallet.account_path);
      root.wipePrivateData();
      return account;
    } finally {
      entropy.fill(0);
    }
  }

  private unseal(owner: SecretOwner, wallet: WalletsTable, password: string): Promise<Buffer> {
    return this.open(owner, wallet.id, password, async () => wallet.sealed_seed, 'wallet');
  }

  private async find(owner: SecretOwner, name: string): Promise<WalletsTable> {
    const row = await this.db
      .selectFrom('wallets')
      .selectAll()
      .where((eb) => eb.and({ ...ownerColumns(owner), name }))
      .executeTakeFirst();
    if (row === undefined) throw walletNotFound(name);
    return row;
  }
}

function publicKeyOf(node: HDKey): Uint8Array {
  if (node.publicKey === null) throw new Error('derived node has no public key');
  return node.publicKey;
}

/** Every row found through its wallet has an index; a missing one is a corrupted row. */
function derivationIndex(row: { derivation_index: number | null }): number {
  if (row.derivation_index === null) throw new Error('derived address without a derivation index');
  return row.derivation_index;
}

function walletNotFound(name: string): ApiError {
  return new ApiError(404, `Wallet ${name} not found in your account`);
}

function summary(row: WalletsTable): StoredWallet {
  return {
    name: row.name,
    label: row.label,
    accountPath: row.account_path,
    nextIndex: row.next_index,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
