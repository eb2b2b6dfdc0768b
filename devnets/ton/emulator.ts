// The TON emulator (@ton/sandbox) as this devnet uses it: a Blockchain that forgets the transactions it
// ran once the devnet has filed them (the sandbox keeps every one for its own tests), whose accounts can
// be read without creating them (a read of any address must not grow the state), and whose state
// (accounts, logical time, clock) can be written out and read back.
import { Address, beginCell, Cell, Dictionary, loadShardAccount, storeShardAccount } from '@ton/core';
import {
  Blockchain,
  type BlockchainSnapshot,
  type BlockchainStorage,
  Executor,
  SmartContract,
} from '@ton/sandbox';

/** The emulator's state, as text: what a saved devnet needs to carry on. */
export interface EmulatorState {
  /** Every account the emulator knows: raw address and ShardAccount as base64 BOC. */
  accounts: { address: string; account: string; lastTxTime: number }[];
  lt: string;
  now: number | null;
}

/** The sandbox's in-memory account store, with a look-up that does not create the account. */
class DevnetStorage implements BlockchainStorage {
  private readonly contracts = new Map<string, SmartContract>();

  async getContract(blockchain: Blockchain, address: Address): Promise<SmartContract> {
    const key = address.toRawString();
    let contract = this.contracts.get(key);
    if (!contract) {
      contract = SmartContract.empty(blockchain, address);
      this.contracts.set(key, contract);
    }
    return contract;
  }

  peek(address: Address): SmartContract | undefined {
    return this.contracts.get(address.toRawString());
  }

  knownContracts(): SmartContract[] {
    return [...this.contracts.values()];
  }

  clearKnownContracts(): void {
    this.contracts.clear();
  }
}

export class DevnetBlockchain extends Blockchain {
  private readonly accounts: DevnetStorage;

  private constructor(executor: Executor, storage: DevnetStorage) {
    super({ executor, storage });
    this.accounts = storage;
  }

  /** An emulator whose network configuration names `globalId` (config param 19), as the network's does. */
  static async open(globalId: number): Promise<DevnetBlockchain> {
    const chain = new DevnetBlockchain(await Executor.create(), new DevnetStorage());
    // The devnet is a server: contract logs and debug prints would flood its output.
    chain.verbosity = { print: false, blockchainLogs: false, vmLogs: 'none', debugLogs: false };
    const params = Dictionary.loadDirect(Dictionary.Keys.Int(32), Dictionary.Values.Cell(), chain.config);
    params.set(19, beginCell().storeInt(globalId, 32).endCell());
    chain.setConfig(beginCell().storeDictDirect(params).endCell());
    return chain;
  }

  /** The account at `address` if the emulator has ever seen it; reading never creates one. */
  peek(address: Address): SmartContract | undefined {
    return this.accounts.peek(address);
  }

  /** Drops the sandbox's own list of every transaction run (the devnet keeps its own). */
  forgetTransactions(): void {
    this.transactions = [];
  }

  exportState(): EmulatorState {
    const snapshot = this.snapshot();
    return {
      accounts: snapshot.contracts
        // An address only looked at (never credited) holds nothing worth saving.
        .filter(
          (c) => c.account.lastTransactionLt > 0n || (c.account.account?.storage.balance.coins ?? 0n) > 0n,
        )
        .map((c) => ({
          address: c.address.toRawString(),
          account: beginCell().store(storeShardAccount(c.account)).endCell().toBoc().toString('base64'),
          lastTxTime: c.lastTxTime,
        })),
      lt: snapshot.lt.toString(),
      now: snapshot.time ?? null,
    };
  }

  async importState(state: EmulatorState): Promise<void> {
    const current = this.snapshot();
    const contracts: BlockchainSnapshot['contracts'] = state.accounts.map((a) => ({
      address: Address.parse(a.address),
      account: loadShardAccount(Cell.fromBase64(a.account).beginParse()),
      lastTxTime: a.lastTxTime,
    }));
    await this.loadFrom({
      ...current,
      contracts,
      lt: BigInt(state.lt),
      time: state.now ?? undefined,
      transactions: [],
    });
  }
}
