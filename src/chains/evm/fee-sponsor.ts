/**
 * The EVM family's fee sponsor (Chaingateway's paymaster on Ethereum, BSC, Polygon, Arbitrum): an exact
 * top-up. The sponsor sends `from` what the transfer lacks at its gas limit and max fee, and the transfer
 * then goes out from `from` with exactly those (sponsored-run.ts). A top-up is spent once sent: nothing is
 * lent, so there is nothing to take back.
 */
import type { Kysely } from 'kysely';
import { ApiError, invalidField } from '../../errors.ts';
import { assetAmount } from '../amount.ts';
import type {
  FeeSponsor,
  PaymasterRequest,
  SponsoredRun,
  SponsoredTransfer,
  SponsorQuote,
} from '../fee-sponsor.ts';
import type { ChainRegistry } from '../registry.ts';
import type { ChainName, Network } from '../types.ts';
import { EvmAdapter } from './adapter.ts';
import { evmTransferTypes } from './chains.ts';
import { tokenDecimals } from './contract-read.ts';
import { checksumAddress } from './keys.ts';
import { HISTORY_NATIVE_TYPE } from './moved-asset.ts';
import { evmNativeCoin } from './native-coins.ts';
import { type NonceDialect, NonceManager } from './nonce-manager.ts';
import { amountOf, requiredAddress } from './request-fields.ts';
import {
  buildSponsoredTransfer,
  maxFeePerGas,
  PAYMENT_GAS,
  spendableCoin,
  termsOf,
  topUpFor,
  transferNeeds,
} from './sponsor-plan.ts';
import { DEFAULT_MINING_WAIT, EvmSponsoredRun, type MiningWait } from './sponsored-run.ts';
import { WEI_DECIMALS } from './units.ts';

export interface EvmFeeSponsorDeps {
  // biome-ignore lint/suspicious/noExplicitAny: any Kysely database that has run migration 0003
  db: Kysely<any>;
  dialect: NonceDialect;
  registry: ChainRegistry;
  /** How runs wait for their transactions; the default suits real chains. */
  wait?: MiningWait;
}

type Standard = 'native' | 'fungible' | 'nft';

export class EvmFeeSponsor implements FeeSponsor {
  private readonly nonces: NonceManager;
  private readonly wait: MiningWait;

  constructor(private readonly deps: EvmFeeSponsorDeps) {
    this.nonces = new NonceManager(deps.db, deps.dialect);
    this.wait = deps.wait ?? DEFAULT_MINING_WAIT;
  }

  types(chain: ChainName): readonly string[] {
    return [...standardsOf(chain).keys()];
  }

  async transfer(chain: ChainName, network: Network, request: PaymasterRequest): Promise<SponsoredTransfer> {
    const standard = standardsOf(chain).get(request.type.toUpperCase());
    if (standard === undefined) {
      throw invalidField('type', `The type field must be one of ${this.types(chain).join(', ')}.`);
    }
    const from = checksumAddress(requiredAddress('from', request.from));
    const to = checksumAddress(requiredAddress('to', request.to));
    const names = evmTransferTypes(chain);
    if (standard === 'native') {
      const units = positiveAmount(request.amount, WEI_DECIMALS);
      return { type: HISTORY_NATIVE_TYPE, from, to, contract: null, tokenId: null, units, decimals: 18 };
    }
    const contract = checksumAddress(requiredAddress('contractaddress', request.contractaddress));
    const adapter = this.adapter(chain, network);
    if (standard === 'nft') {
      const tokenId = nftTokenId(request.tokenid);
      await asField('contractaddress', () => adapter.requireTokenContract(contract));
      return { type: names.nft, from, to, contract, tokenId, units: '1', decimals: 0 };
    }
    const decimals = await asField('contractaddress', () => tokenDecimals(adapter, contract));
    const units = positiveAmount(request.amount, decimals);
    return { type: names.fungible, from, to, contract, tokenId: null, units, decimals };
  }

  /**
   * The top-up the transfer needs now, and the most the sponsor can lose on it: the top-up and the top-up
   * transaction's own fee at its max fee. Refuses what `from` does not hold (token, NFT, coin amount),
   * so that nothing is sponsored for a transfer that would fail.
   */
  async quote(
    chain: ChainName,
    network: Network,
    transfer: SponsoredTransfer,
    _sponsor: string,
  ): Promise<SponsorQuote> {
    const adapter = this.adapter(chain, network);
    await refuseWhatIsNotHeld(adapter, transfer);
    const tx = await buildSponsoredTransfer(adapter, transfer);
    const { gas, fees } = termsOf(tx);
    const perGas = maxFeePerGas(fees);
    const topUp = topUpFor(transferNeeds(tx), await spendableCoin(adapter, this.nonces, transfer.from));
    // No top-up, no top-up transaction: the sponsor pays nothing.
    const maxCost = topUp === 0n ? 0n : topUp + PAYMENT_GAS * perGas;
    const coin = (wei: bigint) => assetAmount(wei, WEI_DECIMALS);
    return {
      maxCost,
      answer: {
        gas_limit: gas.toString(),
        max_fee_per_gas: coin(perGas),
        top_up: coin(topUp),
        paymaster_fee: coin(maxCost),
      },
    };
  }

  run(run: SponsoredRun): Promise<{ txid: string }> {
    const adapter = this.adapter(run.chain, run.network);
    return new EvmSponsoredRun(run, adapter, this.nonces, this.wait).complete();
  }

  /** A top-up is the sponsor's gift once sent: there is nothing lent to take back on an EVM chain. */
  async unwind(_run: SponsoredRun): Promise<void> {}

  async decimals(chain: ChainName, network: Network, contract: string | null): Promise<number> {
    if (contract === null) return WEI_DECIMALS;
    const address = checksumAddress(requiredAddress('contractaddress', contract));
    return asField('contractaddress', () => tokenDecimals(this.adapter(chain, network), address));
  }

  async holding(
    chain: ChainName,
    network: Network,
    address: string,
    contract: string | null,
  ): Promise<bigint> {
    const adapter = this.adapter(chain, network);
    if (contract === null) return adapter.getBalance(address);
    return (await adapter.getErc20Balance(address, contract)).balance;
  }

  /** A token goes whole (the sponsor pays its fee); the coin less the payment's fee at its max fee. */
  async sweepUnits(
    chain: ChainName,
    network: Network,
    _address: string,
    contract: string | null,
    held: bigint,
  ): Promise<bigint | null> {
    if (contract !== null) return held;
    const fees = await this.adapter(chain, network).getFeeDefaults();
    const left = held - PAYMENT_GAS * maxFeePerGas(fees);
    return left > 0n ? left : null;
  }

  private adapter(chain: ChainName, network: Network): EvmAdapter {
    return this.deps.registry.adapterOf(chain, network, EvmAdapter);
  }
}

/**
 * The paymaster types a chain takes, upper case, with what each moves: the chain's own words first, then
 * Ethereum's names for its token standards (BSC's BEP20 is also ERC20) and its coin's former ticker.
 */
function standardsOf(chain: ChainName): Map<string, Standard> {
  const { native, fungible, nft } = evmTransferTypes(chain);
  const standards = new Map<string, Standard>([
    [native, 'native'],
    [fungible, 'fungible'],
    [nft, 'nft'],
  ]);
  for (const former of evmNativeCoin(native)?.aliases ?? []) standards.set(former, 'native');
  if (!standards.has('ERC20')) standards.set('ERC20', 'fungible');
  if (!standards.has('ERC721')) standards.set('ERC721', 'nft');
  return standards;
}

/** A transfer's amount in base units, more than zero, as decimal text. */
function positiveAmount(raw: string | undefined, decimals: number): string {
  if (raw === undefined || raw === '') throw invalidField('amount', 'The amount field is required.');
  const units = amountOf(raw, decimals);
  if (units === 0n) throw invalidField('amount', 'The amount field must be more than 0.');
  return units.toString();
}

function nftTokenId(raw: string | undefined): string {
  const text = (raw ?? '').trim();
  if (!/^\d{1,78}$/.test(text) || BigInt(text) >= 2n ** 256n) {
    throw invalidField('tokenid', 'The tokenid field must be a whole number below 2^256 (a uint256).');
  }
  return BigInt(text).toString();
}

/** A contract that is not the token the request names is a 422 on its field. */
async function asField<T>(field: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ApiError && (error.status === 400 || error.status === 422)) {
      throw invalidField(field, error.message);
    }
    throw error;
  }
}

/** What `from` does not hold is refused before anything is estimated or reserved. */
async function refuseWhatIsNotHeld(adapter: EvmAdapter, transfer: SponsoredTransfer): Promise<void> {
  const units = BigInt(transfer.units);
  if (transfer.contract === null) {
    // The sponsor pays a fee, never the amount itself.
    const held = await adapter.getBalance(transfer.from);
    if (held < units) {
      throw invalidField(
        'amount',
        `The amount is more than from holds: ${assetAmount(held, WEI_DECIMALS)} ${adapter.nativeSymbol}.`,
      );
    }
  } else if (transfer.tokenId !== null) {
    const owner = await adapter.nftOwner(transfer.contract, BigInt(transfer.tokenId));
    if (owner !== checksumAddress(transfer.from)) {
      throw invalidField('tokenid', `The token ${transfer.tokenId} is not held by from.`);
    }
  } else {
    const { balance } = await adapter.getErc20Balance(transfer.from, transfer.contract);
    if (balance < units) {
      throw invalidField(
        'amount',
        `The amount is more than from holds of the token: ${assetAmount(balance, transfer.decimals)}.`,
      );
    }
  }
}
