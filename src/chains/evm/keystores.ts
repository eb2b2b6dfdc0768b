import type { AddressKeys } from '../../custody/address-keys.ts';
import { WrongPasswordError } from '../../custody/key-vault.ts';
import { ApiError, invalidField } from '../../errors.ts';
import type { AddressCustody } from '../../services/address-custody.ts';
import type { KeyCodec } from '../family.ts';
import type { ChainRegistry } from '../registry.ts';
import type { ChainName, Network } from '../types.ts';
import { exportKeystore, importKeystore } from './keystore.ts';

export interface EvmKeystoresDeps {
  registry: ChainRegistry;
  addressKeys: AddressKeys;
  /** Exports go through the custody every chain has (its wrong-password answer, its throttling). */
  custody: AddressCustody;
  keys: KeyCodec;
}

/**
 * The EVM routes' key imports and exports: a raw private key, or a keystore v3 file (scrypt or pbkdf2)
 * opened with its password, which then protects the stored key (the custody every chain has:
 * services/address-custody.ts).
 */
export class EvmKeystores {
  constructor(private readonly deps: EvmKeystoresDeps) {}

  private scope(userId: string, chain: ChainName, network: Network) {
    return { userId, chain, network, codec: this.deps.keys };
  }

  /** Refuses a chain or network this gateway does not serve, before any key is touched. */
  private assertServed(chain: ChainName, network: Network) {
    this.deps.registry.get(chain, network);
  }

  async importPrivateKey(
    userId: string,
    chain: ChainName,
    network: Network,
    privateKey: string,
    password?: string,
  ) {
    this.assertServed(chain, network);
    const pair = await this.deps.addressKeys.import(this.scope(userId, chain, network), privateKey, password);
    return { address: pair.address, publicKey: pair.publicKey };
  }

  async importKeystore(
    userId: string,
    chain: ChainName,
    network: Network,
    content: unknown,
    filename: string,
    password: string,
  ) {
    this.assertServed(chain, network);
    let parsed: unknown = content;
    if (typeof content === 'string') {
      try {
        parsed = JSON.parse(content);
      } catch {
        throw invalidField('content', 'The content field must be a keystore v3 JSON document.');
      }
    }
    let pair: Awaited<ReturnType<typeof importKeystore>>;
    try {
      pair = await importKeystore(parsed, password, { owner: userId });
    } catch (error) {
      if (error instanceof WrongPasswordError) throw new ApiError(401, 'Wrong password provided');
      throw error;
    }
    await this.deps.addressKeys.import(this.scope(userId, chain, network), pair.privateKey, password);
    return { filename, content: parsed, address: pair.address };
  }

  async exportKeystore(
    userId: string,
    chain: ChainName,
    network: Network,
    address: string,
    password: string,
  ) {
    const key = await this.deps.custody.exportKey({ userId, chain, network }, address, password);
    return exportKeystore(key, password, { caller: { owner: userId } });
  }

  async exportPrivateKey(
    userId: string,
    chain: ChainName,
    network: Network,
    address: string,
    password: string,
  ) {
    const key = await this.deps.custody.exportKey({ userId, chain, network }, address, password);
    return { private_key: `0x${key}` };
  }
}
