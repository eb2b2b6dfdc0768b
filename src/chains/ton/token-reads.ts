/**
 * TON's jetton reads: a master's description (TEP-74 `get_jetton_data`, TEP-64 metadata) and an owner's
 * balance of a jetton, read from the wallet the master names for that owner.
 */
import { ApiError } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import type { ChainRegistry } from '../registry.ts';
import type { Network } from '../types.ts';
import { TonAdapter } from './adapter.ts';
import { tonAddressOf, walletAddress } from './address.ts';
import { comparableAddress } from './block-transfers.ts';
import { shownContract } from './decoded-transaction.ts';
import type { JettonDescription } from './jettons.ts';

export class TonTokenReads {
  constructor(private readonly registry: ChainRegistry) {}

  /**
   * What the master says of its jetton; on-chain metadata only (an off-chain one is named by its URI, and
   * amounts are in base units alone where the decimals are not on chain).
   */
  async jetton(network: Network, master: string) {
    const description = await readMaster(this.adapter(network), master);
    return {
      jetton: shownContract(description.master, network),
      name: description.name,
      symbol: description.symbol,
      description: description.description,
      decimals: description.decimals,
      total_supply:
        description.decimals === null ? null : assetAmount(description.totalSupply, description.decimals),
      total_supply_raw: description.totalSupply.toString(),
      mintable: description.mintable,
      admin: description.admin === null ? null : shownContract(description.admin, network),
      uri: description.uri,
    };
  }

  /** What `owner` holds of the jetton: its jetton wallet's balance (0 while that wallet is not deployed). */
  async balance(network: Network, owner: string, master: string) {
    const adapter = this.adapter(network);
    const description = await readMaster(adapter, master);
    const ownerRaw = comparableAddress(owner)!;
    const wallet = await adapter.jettons.walletOf(description.master, ownerRaw);
    if (wallet === null) throw new ApiError(400, `${master} does not name its jetton wallets`);
    const data = await adapter.jettons.walletData(wallet);
    // A wallet not deployed yet holds nothing; one that names another master is none of this jetton's.
    const units = data !== null && comparableAddress(data.master) === description.master ? data.balance : 0n;
    return {
      address: walletForm(owner, network),
      jetton: shownContract(description.master, network),
      jetton_wallet: shownContract(wallet, network),
      decimals: description.decimals,
      balance: description.decimals === null ? null : assetAmount(units, description.decimals),
      balance_raw: units.toString(),
    };
  }

  private adapter(network: Network): TonAdapter {
    return this.registry.adapterOf('ton', network, TonAdapter);
  }
}

function walletForm(address: string, network: Network): string {
  const parsed = tonAddressOf(address);
  return parsed === null ? address : walletAddress(parsed, network);
}

/**
 * The jetton master at `master`; when none is there, `status` (400 for a read, as the other chains answer
 * an unknown contract; 422 for a send, whose other refusals are 422). An account without code is asked
 * nothing: a get-method on it is an error on some indexers.
 */
export async function readMaster(
  adapter: TonAdapter,
  master: string,
  status = 400,
): Promise<JettonDescription> {
  const raw = comparableAddress(master)!;
  const account = await adapter.toncenter.account(raw);
  const description = account.status === 'active' ? await adapter.jettons.master(raw) : null;
  if (description === null) throw new ApiError(status, `${master} is not a jetton master`);
  return { ...description, master: raw };
}
