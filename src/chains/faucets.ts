import { invalidField } from '../errors.ts';
import { formatAmount } from './amount.ts';
import { amountField } from './amount-field.ts';
import type { ChainName, Network } from './types.ts';

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
const MAX_MINT_TOKENS = 1_000_000_000_000n;

/** One asset a faucet pays out, and how. */
export interface FaucetPayout {
  decimals: number;
  /** The asset's symbol, as the answer and a refusal name it. */
  symbol: string;
  /** The token's contract (or id) as the answer names it; null for the native coin. */
  contractaddress: string | null;
  /** The most one request may take, asked once the amount reads well: the faucet's own funds, say. */
  most: () => bigint | Promise<bigint>;
  /** Sends `units` to the address; the transaction's id. */
  send: (units: bigint) => Promise<string>;
}

/** The most of a demo token one request may take: minted, so only MAX_MINT_TOKENS bounds it. */
export function mintable(decimals: number): () => bigint {
  return () => MAX_MINT_TOKENS * 10n ** BigInt(decimals);
}

/**
 * Pays the request's amount of one asset to `address` (the request's address as the chain writes it):
 * a 422 on the amount field for an amount that does not read, or is more than the faucet can give.
 */
export async function payOut(
  request: FaucetRequest,
  address: string,
  payout: FaucetPayout,
): Promise<FaucetResult> {
  const { decimals, symbol, contractaddress } = payout;
  const units = amountField(request.amount, decimals);
  const most = await payout.most();
  if (units > most) {
    const available = formatAmount(most > 0n ? most : 0n, decimals);
    throw invalidField('amount', `The faucet can give at most ${available} ${symbol} per request.`);
  }
  const txid = await payout.send(units);
  return { address, amount: formatAmount(units, decimals), symbol, contractaddress, txid };
}
