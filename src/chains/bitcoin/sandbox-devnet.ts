import path from 'node:path';
import { type BitcoinDevnet, startBitcoinDevnet } from '../../../devnets/bitcoin/index.ts';
import { ApiError, invalidField } from '../../errors.ts';
import { type Faucet, type FaucetRequest, type FaucetResult, payOut } from '../faucets.ts';
import type { DevnetSettings, DevnetStarters, RunningDevnet } from '../sandbox-devnet.ts';
import type { Network } from '../types.ts';
import { isBitcoinAddress } from './address.ts';
import { BTC_DECIMALS } from './btc-amount.ts';

/** The most BTC one faucet request gives. */
const MAX_FAUCET_SATS = 10n * 10n ** 8n;
/** A block every 10 seconds: payments confirm while a developer watches, as on a busy testnet. */
const BLOCK_INTERVAL_MS = 10_000;

/** Pays BTC from the devnet's premined coins and mines it into a block at once. */
class BitcoinDevnetFaucet implements Faucet {
  constructor(private readonly devnet: BitcoinDevnet) {}

  async fund(request: FaucetRequest): Promise<FaucetResult> {
    if (!isBitcoinAddress(request.address)) {
      throw invalidField('address', 'The address field must be a Bitcoin address.');
    }
    if (request.contractaddress !== undefined && request.contractaddress !== '') {
      throw new ApiError(422, 'Bitcoin has no tokens: the faucet sends BTC', [
        { field: 'contractaddress', message: 'Leave contractaddress out on Bitcoin.' },
      ]);
    }
    return payOut(request, request.address, {
      decimals: BTC_DECIMALS,
      symbol: 'BTC',
      contractaddress: null,
      most: () => MAX_FAUCET_SATS,
      send: async (sats) => {
        let txid: string;
        try {
          txid = await this.devnet.faucet(request.address, sats);
        } catch (error) {
          throw invalidField('address', `The devnet refused the payment: ${(error as Error).message}`);
        }
        await this.devnet.mine(1);
        return txid;
      },
    });
  }
}

/**
 * One Bitcoin devnet per network, a block every 10 seconds; its chain is kept in `dir`. It stands for
 * Bitcoin mainnet (`bc1` addresses) or testnet (`tb1`), with that network's genesis hash, so the
 * gateway's network check accepts it with the default settings.
 */
export async function startBitcoinSandboxDevnet(
  network: Network,
  dir: string,
  settings: DevnetSettings,
): Promise<RunningDevnet> {
  const devnet = await startBitcoinDevnet({
    network: network === 'mainnet' ? 'mainnet' : 'testnet',
    blockIntervalMs: BLOCK_INTERVAL_MS,
    snapshotFile: path.join(dir, 'chain.json'),
    saveIntervalMs: settings.saveIntervalMs,
  });
  return {
    chain: 'bitcoin',
    network,
    endpoints: [{ url: devnet.url, headers: {} }],
    tokens: {},
    faucet: new BitcoinDevnetFaucet(devnet),
    stop: () => devnet.close(),
  };
}

/** The devnet the sandbox runs for Bitcoin. */
export const bitcoinSandboxDevnets: DevnetStarters = { bitcoin: startBitcoinSandboxDevnet };
