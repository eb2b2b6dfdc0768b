import type { FamilyModule } from '../chains/family.ts';
import type { CustodyPort } from '../chains/ports.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ChainKeyPair, ChainName, Network } from '../chains/types.ts';
import type { Env } from '../config/setting.ts';
import type { AddressKeys, StoredAddress } from '../custody/address-keys.ts';
import { wrongPasswordIs401 } from '../custody/wrong-password.ts';
import { ApiError } from '../errors.ts';

export interface AddressCustodyDeps {
  registry: ChainRegistry;
  addressKeys: AddressKeys;
  /** The families' own settings, which configure their key codecs. */
  settings: Env;
  /** The family that serves a chain (its key codec). */
  familyOf: (chain: ChainName) => FamilyModule | undefined;
}

/** Where a custody request acts: whose addresses, on which chain and network. */
export interface CustodyTarget {
  userId: string;
  chain: ChainName;
  network: Network;
}

/**
 * Custodial addresses of every chain: create, import, list, change password, export, forget. The one
 * place a wrong password becomes the API's 401 `Wrong password provided`; the answers' shapes are the
 * family's (`FamilyModule.custody`).
 */
export class AddressCustody implements CustodyPort {
  constructor(private readonly deps: AddressCustodyDeps) {}

  /** A new key pair; kept sealed with a password, only returned without one. */
  async create(target: CustodyTarget, password?: string): Promise<ChainKeyPair> {
    return this.deps.addressKeys.create(this.scope(target, true), password);
  }

  async import(target: CustodyTarget, privateKey: string, password?: string): Promise<ChainKeyPair> {
    return this.deps.addressKeys.import(this.scope(target, true), privateKey, password);
  }

  list(target: CustodyTarget): Promise<StoredAddress[]> {
    return this.deps.addressKeys.list(target);
  }

  async remove(target: CustodyTarget, address: string): Promise<void> {
    if (!(await this.deps.addressKeys.remove(this.scope(target), address))) {
      throw new ApiError(404, 'Address not found');
    }
  }

  async changePassword(
    target: CustodyTarget,
    address: string,
    oldPassword: string,
    newPassword: string,
  ): Promise<void> {
    await wrongPasswordIs401(() =>
      this.deps.addressKeys.changePassword(this.scope(target), address, oldPassword, newPassword),
    );
  }

  /** The stored private key (hex, no 0x) of `address`, opened with its password. */
  exportKey(target: CustodyTarget, address: string, password: string): Promise<string> {
    return wrongPasswordIs401(() => this.deps.addressKeys.exportKey(this.scope(target), address, password));
  }

  /**
   * The wallet scope of the target. Making a key needs the chain served on that network (else 404
   * `Unsupported blockchain`); reading or forgetting stored ones does not.
   */
  private scope(target: CustodyTarget, needsNode = false) {
    if (needsNode) this.deps.registry.get(target.chain, target.network);
    const family = this.deps.familyOf(target.chain);
    if (family === undefined) throw new ApiError(404, 'Unsupported blockchain');
    return { ...target, codec: family.keys(target.network, this.deps.settings) };
  }
}
