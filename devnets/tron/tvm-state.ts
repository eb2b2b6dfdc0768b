// The EVM's view of the Tron world state: 20-byte addresses (0x41 dropped), TRX balances in sun,
// contract code and storage. Writes go to checkpoint layers and reach the world only on flush().
import type { StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address, bytesToHex, KECCAK256_NULL } from '@ethereumjs/util';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { newAccount, type WorldState } from './state.ts';

interface Layer {
  accounts: Map<string, Account | null>;
  code: Map<string, Uint8Array>;
  storage: Map<string, Uint8Array>;
  cleared: Set<string>;
}

const newLayer = (): Layer => ({
  accounts: new Map(),
  code: new Map(),
  storage: new Map(),
  cleared: new Set(),
});

/** 0x-prefixed EVM address -> Tron 41-hex. */
const tronHex = (address: Address) => `41${address.toString().slice(2).toLowerCase()}`;
const slotKey = (address: Address, key: Uint8Array) =>
  `${address.toString()}:${bytesToHex(key).slice(2).padStart(64, '0')}`;

export class TvmStateManager implements StateManagerInterface {
  private layers: Layer[] = [newLayer()];

  constructor(
    private readonly world: WorldState,
    private readonly createTime: bigint,
  ) {}

  readonly originalStorageCache = {
    get: async (address: Address, key: Uint8Array) => this.baseStorage(address, key),
    clear: () => {},
  };

  private top(): Layer {
    return this.layers[this.layers.length - 1] as Layer;
  }

  private baseStorage(address: Address, key: Uint8Array): Uint8Array {
    const contract = this.world.contracts.get(tronHex(address));
    const slot = bytesToHex(key).slice(2).padStart(64, '0');
    return contract?.storage.get(slot) ?? new Uint8Array();
  }

  private baseAccount(address: Address): Account | undefined {
    const hex = tronHex(address);
    const a = this.world.accounts.get(hex);
    if (!a) return undefined;
    const contract = this.world.contracts.get(hex);
    return new Account(0n, a.balance, undefined, contract ? contract.codeHash : KECCAK256_NULL);
  }

  async getAccount(address: Address): Promise<Account | undefined> {
    const key = address.toString();
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const layer = this.layers[i] as Layer;
      if (layer.accounts.has(key)) {
        const a = layer.accounts.get(key);
        return a ? new Account(a.nonce, a.balance, a.storageRoot, a.codeHash) : undefined;
      }
    }
    return this.baseAccount(address);
  }

  async putAccount(address: Address, account?: Account): Promise<void> {
    this.top().accounts.set(address.toString(), account ?? null);
  }

  async deleteAccount(address: Address): Promise<void> {
    this.top().accounts.set(address.toString(), null);
  }

  async modifyAccountFields(
    address: Address,
    fields: Partial<Pick<Account, 'nonce' | 'balance' | 'storageRoot' | 'codeHash'>>,
  ): Promise<void> {
    const a = (await this.getAccount(address)) ?? new Account();
    if (fields.nonce !== undefined) a.nonce = fields.nonce;
    if (fields.balance !== undefined) a.balance = fields.balance;
    if (fields.storageRoot !== undefined) a.storageRoot = fields.storageRoot;
    if (fields.codeHash !== undefined) a.codeHash = fields.codeHash;
    await this.putAccount(address, a);
  }

  async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.top().code.set(address.toString(), value);
    await this.modifyAccountFields(address, { codeHash: keccak_256(value) });
  }

  async getCode(address: Address): Promise<Uint8Array> {
    const key = address.toString();
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const code = (this.layers[i] as Layer).code.get(key);
      if (code) return code;
    }
    return this.world.contracts.get(tronHex(address))?.runtimeCode ?? new Uint8Array();
  }

  async getCodeSize(address: Address): Promise<number> {
    return (await this.getCode(address)).length;
  }

  async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const k = slotKey(address, key);
    for (let i = this.layers.length - 1; i >= 0; i--) {
      const layer = this.layers[i] as Layer;
      const v = layer.storage.get(k);
      if (v) return v;
      if (layer.cleared.has(address.toString())) return new Uint8Array();
    }
    return this.baseStorage(address, key);
  }

  async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    this.top().storage.set(slotKey(address, key), value);
  }

  async clearStorage(address: Address): Promise<void> {
    const top = this.top();
    const prefix = `${address.toString()}:`;
    for (const k of [...top.storage.keys()]) if (k.startsWith(prefix)) top.storage.delete(k);
    top.cleared.add(address.toString());
  }

  async checkpoint(): Promise<void> {
    this.layers.push(newLayer());
  }

  async commit(): Promise<void> {
    this.mergeTop();
  }

  private mergeTop(): void {
    const top = this.layers.pop() as Layer;
    const below = this.top();
    for (const a of top.cleared) {
      const prefix = `${a}:`;
      for (const k of [...below.storage.keys()]) if (k.startsWith(prefix)) below.storage.delete(k);
      below.cleared.add(a);
    }
    for (const [k, v] of top.accounts) below.accounts.set(k, v);
    for (const [k, v] of top.code) below.code.set(k, v);
    for (const [k, v] of top.storage) below.storage.set(k, v);
  }

  async revert(): Promise<void> {
    this.layers.pop();
    if (this.layers.length === 0) this.layers.push(newLayer());
  }

  async getStateRoot(): Promise<Uint8Array> {
    return new Uint8Array(32);
  }

  async setStateRoot(): Promise<void> {}

  async hasStateRoot(): Promise<boolean> {
    return false;
  }

  clearCaches(): void {}

  shallowCopy(): StateManagerInterface {
    const copy = new TvmStateManager(this.world, this.createTime);
    copy.layers = this.layers.map((l) => ({
      accounts: new Map(l.accounts),
      code: new Map(l.code),
      storage: new Map(l.storage),
      cleared: new Set(l.cleared),
    }));
    return copy;
  }

  /** Applies the surviving writes to the world. Tron never deletes accounts (no EIP-161). */
  flush(): void {
    while (this.layers.length > 1) this.mergeTop();
    const layer = this.top();
    for (const evmAddress of layer.cleared) {
      this.world.contracts.get(`41${evmAddress.slice(2).toLowerCase()}`)?.storage.clear();
    }
    for (const [key, acc] of layer.accounts) {
      if (!acc) continue;
      const hex = `41${key.slice(2).toLowerCase()}`;
      let a = this.world.accounts.get(hex);
      if (!a) {
        a = newAccount(hex, this.createTime);
        this.world.accounts.set(hex, a);
      }
      a.balance = acc.balance;
    }
    for (const [k, v] of layer.storage) {
      const [evmAddress, slot] = k.split(':') as [string, string];
      const contract = this.world.contracts.get(`41${evmAddress.slice(2).toLowerCase()}`);
      if (!contract) continue;
      if (v.length === 0 || v.every((b) => b === 0)) contract.storage.delete(slot);
      else contract.storage.set(slot, v);
    }
    this.layers = [newLayer()];
  }
}
