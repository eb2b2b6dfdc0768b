import path from 'node:path';
import {
  MAINNET_GLOBAL_ID,
  startTonDevnet,
  TESTNET_GLOBAL_ID,
  type TonDevnet,
} from '../../../devnets/ton/index.ts';
import { ApiError, invalidField } from '../../errors.ts';
import { type Faucet, type FaucetRequest, type FaucetResult, mintable, payOut } from '../faucets.ts';
import { NodeClient } from '../node-client.ts';
import type { DevnetSettings, DevnetStarters, RunningDevnet } from '../sandbox-devnet.ts';
import type { Network } from '../types.ts';
import { addressProblem, tonAddressOf, walletAddress } from './address.ts';
import { comparableAddress, hexHash, NANOTON_DECIMALS } from './block-transfers.ts';
import { Toncenter } from './toncenter.ts';

/** The demo USDT has 6 decimals, like USDT on TON. */
const DEMO_DECIMALS = 6;
/** The most TON one faucet request gives. */
const MAX_FAUCET_NANOTONS = 1_000n * 10n ** 9n;

/** Sends TON or mints the demo USDT from the devnet's faucet; funds arrive in a block at once. */
class TonDevnetFaucet implements Faucet {
  readonly #toncenter: Toncenter;

  constructor(
    private readonly devnet: TonDevnet,
    private readonly network: Network,
    client: NodeClient,
  ) {
    this.#toncenter = new Toncenter(client);
  }

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
        send: async (nanotons) => {
          await this.devnet.fund(address, nanotons);
          return this.#lastTransaction(address);
        },
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
      send: async (units) => {
        await this.devnet.mintJetton(token[1], address, units);
        return this.#lastTransaction(address);
      },
    });
  }

  /** The faucet's transfer, as the receiving account's newest transaction (64 hex). */
  async #lastTransaction(address: string): Promise<string> {
    const hash = (await this.#toncenter.account(address)).lastTransactionHash;
    return hash === null ? '' : hexHash(hash);
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
  const client = new NodeClient({ chain: 'ton', network, endpoints: [{ url: devnet.url }] });
  const jettons = Object.fromEntries(
    Object.entries(devnet.tokens.jetton).filter(([, master]) => master !== ''),
  );
  return {
    chain: 'ton',
    network,
    endpoints: [{ url: devnet.url, headers: {} }],
    tokens: { jetton: jettons },
    faucet: new TonDevnetFaucet(devnet, network, client),
    stop: async () => {
      await client.close();
      await devnet.close();
    },
  };
}

/** The devnet the sandbox runs for TON. */
export const tonSandboxDevnets: DevnetStarters = { ton: startTonSandboxDevnet };
