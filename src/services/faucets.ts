import { formatAmount, parseAmount } from '../chains/amount.ts';
import type { ChainName, Network } from '../chains/types.ts';
import { invalidField } from '../errors.ts';

/** A sandbox faucet request as the API receives it (amount in the asset's units, not base units). */
export interface FaucetRequest {
  address: string;
  amount: string | number;
  contractaddress?: string;
}

export interface FaucetResult {
  address: string;
  /** Decimal amount sent, in the asset's units. */
  amount: string;
  symbol: string;
  contractaddress: string | null;
  txid: string | null;
}

/** Funds addresses on one devnet. Only the sandbox has faucets. */
export interface Faucet {
  fund(request: FaucetRequest): Promise<FaucetResult>;
}

/** The sandbox's faucets by chain and network. */
export class FaucetDirectory {
  private readonly faucets = new Map<string, Faucet>();

  add(chain: ChainName, network: Network, faucet: Faucet): void {
    this.faucets.set(`${chain}:${network}`, faucet);
  }

  get(chain: string, network: Network): Faucet | undefined {
    return this.faucets.get(`${chain}:${network}`);
  }
}

/** Demo tokens are minted on request; this bounds one request so the token's supply can never overflow. */
export const MAX_MINT_TOKENS = 1_000_000_000_000n;

/** Refuses (422, saying the most it can give) a request for more than the faucet has to give. */
export function assertFaucetCanGive(units: bigint, most: bigint, decimals: number, symbol: string): void {
  if (units <= most) return;
  const available = formatAmount(most > 0n ? most : 0n, decimals);
  throw invalidField('amount', `The faucet can give at most ${available} ${symbol} per request.`);
}

/** A faucet request's amount in base units of an asset with `decimals`, or a 422 on the amount field. */
export function faucetUnits(request: FaucetRequest, decimals: number): bigint {
  try {
    return parseAmount(request.amount, decimals);
  } catch (error) {
    throw invalidField('amount', `The amount field is invalid: ${(error as Error).message}.`);
  }
}
