/**
 * The caller's Bitcoin HD wallets (custody/hd-wallets.ts) under the BIP-84 codec of their network, and
 * what their addresses hold. The wallet operations and the wallet sends and builds share them.
 */

import type { Env } from '../../config/setting.ts';
import type { HdScope, HdWallets } from '../../custody/hd-wallets.ts';
import type { Caller } from '../ports.ts';
import type { ChainRegistry } from '../registry.ts';
import type { Network } from '../types.ts';
import { BitcoinAdapter } from './adapter.ts';
import { bip84Keys } from './hd-keys.ts';
import { bitcoinNetworkOf } from './networks.ts';

/** The most addresses whose balances a wallet read asks the node for at once. */
const BALANCE_READS_AT_ONCE = 4;

/** What a wallet's addresses hold, confirmed and in the mempool (sats), and how many transactions touched them. */
export interface WalletHoldings {
  confirmed: bigint;
  unconfirmed: bigint;
  transactions: number;
}

export class BitcoinWallets {
  constructor(
    readonly hdWallets: HdWallets,
    private readonly registry: ChainRegistry,
    private readonly settings: Env,
  ) {}

  /** The caller's wallets on its network, with the BIP-84 keys of that network. */
  scope({ userId, chain, network }: Caller): HdScope {
    return { userId, chain, network, codec: bip84Keys(bitcoinNetworkOf(network, this.settings)) };
  }

  /** The node of the network (404 `Unsupported blockchain` when it is not served). */
  adapter(network: Network): BitcoinAdapter {
    return this.registry.adapterOf('bitcoin', network, BitcoinAdapter);
  }

  /** The wallet's addresses, oldest first. */
  async addresses(caller: Caller, wallet: string): Promise<string[]> {
    const derived = await this.hdWallets.addresses(this.scope(caller), wallet);
    return derived.map((address) => address.address);
  }

  /** What `addresses` hold, summed. */
  async holdings(network: Network, addresses: readonly string[]): Promise<WalletHoldings> {
    const adapter = this.adapter(network);
    const held: WalletHoldings = { confirmed: 0n, unconfirmed: 0n, transactions: 0 };
    for (let i = 0; i < addresses.length; i += BALANCE_READS_AT_ONCE) {
      const read = await Promise.all(
        addresses.slice(i, i + BALANCE_READS_AT_ONCE).map((address) => adapter.backend.balance(address)),
      );
      for (const balance of read) {
        held.confirmed += balance.confirmed;
        held.unconfirmed += balance.unconfirmed;
        held.transactions += balance.txCount;
      }
    }
    return held;
  }
}
