import { WrongPasswordError } from '../../custody/key-vault.ts';
import { invalidField, WrongPasswordAnswer } from '../../errors.ts';
import type { Caller, CustodyPort } from '../ports.ts';
import type { ChainRegistry } from '../registry.ts';
import { exportKeystore, importKeystore } from './keystore.ts';

export interface EvmKeystoresDeps {
  registry: ChainRegistry;
  /** Imports and exports go through the custody every chain has (its wrong-password answer, its throttling). */
  custody: CustodyPort;
}

/**
 * The EVM key imports and exports: a raw private key, or a keystore v3 file (scrypt or pbkdf2) opened with
 * its password, which then protects the stored key in the custody every chain has.
 */
export class EvmKeystores {
  constructor(private readonly deps: EvmKeystoresDeps) {}

  /** Refuses a chain or network this gateway does not serve, before any key is touched. */
  private assertServed({ chain, network }: Caller) {
    this.deps.registry.get(chain, network);
  }

  async importPrivateKey(caller: Caller, privateKey: string, password?: string) {
    const pair = await this.deps.custody.import(caller, privateKey, password);
    return { address: pair.address, publicKey: pair.publicKey };
  }

  async importKeystore(caller: Caller, content: unknown, filename: string, password: string) {
    this.assertServed(caller);
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
      pair = await importKeystore(parsed, password, { owner: caller.userId });
    } catch (error) {
      if (error instanceof WrongPasswordError) throw new WrongPasswordAnswer();
      throw error;
    }
    await this.deps.custody.import(caller, pair.privateKey, password);
    return { filename, content: parsed, address: pair.address };
  }

  async exportKeystore(caller: Caller, address: string, password: string) {
    const key = await this.deps.custody.exportKey(caller, address, password);
    return exportKeystore(key, password, { caller: { owner: caller.userId } });
  }

  async exportPrivateKey(caller: Caller, address: string, password: string) {
    const key = await this.deps.custody.exportKey(caller, address, password);
    return { private_key: `0x${key}` };
  }
}
