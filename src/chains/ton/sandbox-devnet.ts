import path from 'node:path';
import {
  MAINNET_GLOBAL_ID,
  startTonDevnet,
  TESTNET_GLOBAL_ID,
  type TonDevnet,
} from '../../../devnets/ton/index.ts';
import { ApiError, invalidField } from '../../errors.ts';
import { type Faucet, type FaucetRequest, type FaucetResult, mintable, payOut } from '../faucets.ts';
import type { DevnetSettings, DevnetStarters, RunningDevnet } from '../sandbox-devnet.ts';
import type { Network } from '../types.ts';
import { addressProblem, tonAddressOf, walletAddress } from './address.ts';
import { comparableAddress, NANOTON_DECIMALS } from './block-transfers.ts';

/** The demo USDT has 6 decimals, like USDT on TON. */
const DEMO_DECIMALS = 6;
/** The most TON one faucet request gives. */
const MAX_FAUCET_NANOTONS = 1_000n * 10n ** 9n;

/**
 * Sends TON or mints the demo USDT from the devnet's faucet; funds arrive in a block at once. Its txid is
 * the faucet message's normalized hash: the id the payment's webhook reports.
 */
class TonDevnetFaucet implements Faucet {
  constructor(
    private readonly devnet: TonDevnet,
    private readonly network: Network,
  ) {}

  async fund(request: FaucetRequest): Promise<FaucetResult> {
    const problem = addressProblem(request.address, this.network);
    const parsed = tonAddressOf(request.address);
    if (problem !== null || parsed === null) {
      throw invalidField('address', `The address field must be a TON address of ${this.network}.`);
    }
    const address = walletAddress(parsed, this.network);
    const contract = request.contractaddress;
    if (contract === undefined || contract === '') {
      return payOut(request, address, {
        decimals: NANOTON_DECIMALS,
        symbol: 'TON',
        contractaddress: null,
        most: () => MAX_FAUCET_NANOTONS,
        send: (nanotons) => this.devnet.fund(address, nanotons),
      });
    }
    const token = Object.entries(this.devnet.tokens.jetton).find(
      ([, master]) => master !== '' && comparableAddress(master) === comparableAddress(contract),
    );
    if (token === undefined) {
      throw new ApiError(422, 'The faucet sends TON or the demo jettons listed in sandbox.json', [
        { field: 'contractaddress', message: 'Not a demo jetton of this devnet.' },
      ]);
    }
    return payOut(request, address, {
      decimals: DEMO_DECIMALS,
      symbol: token[0],
      contractaddress: token[1],
      most: mintable(DEMO_DECIMALS),
      send: (units) => this.devnet.mintJetton(token[1], address, units),
    });
  }
}

/**
 * One TON devnet per network, a masterchain block every second, with its demo USDT; its chain is kept in
 * `dir`. It reports the global id of the network it stands for, so the gateway's network check accepts it.
 */
export async function startTonSandboxDevnet(
  network: Network,
  dir: string,
  settings: DevnetSettings,
): Promise<RunningDevnet> {
  const devnet = await startTonDevnet({
    blockIntervalMs: 1000,
    globalId: network === 'mainnet' ? MAINNET_GLOBAL_ID : TESTNET_GLOBAL_ID,
    snapshotFile: path.join(dir, 'chain.json'),
    saveIntervalMs: settings.saveIntervalMs,
  });
  const jettons = Object.fromEntries(
    Object.entries(devnet.tokens.jetton).filter(([, master]) => master !== ''),
  );
  return {
    chain: 'ton',
    network,
    endpoints: [{ url: devnet.url, headers: {} }],
    tokens: { jetton: jettons },
    faucet: new TonDevnetFaucet(devnet, network),
    stop: () => devnet.close(),
  };
}

/** The devnet the sandbox runs for TON. */
export const tonSandboxDevnets: DevnetStarters = { ton: startTonSandboxDevnet };
