import path from 'node:path';
import { MAINNET_GENESIS_HASH, type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import { ApiError, invalidField } from '../../errors.ts';
import { type Faucet, type FaucetRequest, type FaucetResult, mintable, payOut } from '../faucets.ts';
import type { DevnetSettings, DevnetStarters, RunningDevnet } from '../sandbox-devnet.ts';
import type { Network } from '../types.ts';
import { LAMPORTS_DECIMALS } from './adapter.ts';
import { isSolanaAddress } from './keys.ts';
import { SOLANA_GENESIS } from './probe.ts';

/** The demo tokens have 6 decimals, like USDT on Solana. */
const DEMO_DECIMALS = 6;
/** The most SOL one faucet request gives. */
const MAX_FAUCET_LAMPORTS = 1_000n * 10n ** 9n;

/** Sends SOL or mints a demo token from the devnet's faucet; funds arrive in a block at once. */
class SolanaDevnetFaucet implements Faucet {
  constructor(private readonly devnet: SolanaDevnet) {}

  async fund(request: FaucetRequest): Promise<FaucetResult> {
    if (!isSolanaAddress(request.address)) {
      throw invalidField('address', 'The address field must be a Solana address.');
    }
    const contract = request.contractaddress;
    if (contract === undefined || contract === '') {
      return payOut(request, request.address, {
        decimals: LAMPORTS_DECIMALS,
        symbol: 'SOL',
        contractaddress: null,
        most: () => MAX_FAUCET_LAMPORTS,
        send: (lamports) => this.devnet.airdrop(request.address, lamports),
      });
    }
    const token = Object.entries(this.devnet.tokens.spl).find(([, mint]) => mint === contract);
    if (token === undefined) {
      throw new ApiError(422, 'The faucet sends SOL or the demo tokens listed in sandbox.json', [
        { field: 'contractaddress', message: 'Not a demo token of this devnet.' },
      ]);
    }
    return payOut(request, request.address, {
      decimals: DEMO_DECIMALS,
      symbol: token[0],
      contractaddress: contract,
      most: mintable(DEMO_DECIMALS),
      send: (units) => this.devnet.faucetSpl(contract, request.address, units),
    });
  }
}

/**
 * One Solana devnet per network, a slot every 400 ms, with its demo tokens; its chain is kept in `dir`.
 * It reports the genesis hash of the cluster it stands for, so the gateway's network check accepts it.
 */
export async function startSolanaSandboxDevnet(
  network: Network,
  dir: string,
  settings: DevnetSettings,
): Promise<RunningDevnet> {
  const genesisHash = network === 'mainnet' ? MAINNET_GENESIS_HASH : Object.keys(SOLANA_GENESIS.testnet)[0];
  const devnet = await startSolanaDevnet({
    slotIntervalMs: 400,
    genesisHash,
    snapshotFile: path.join(dir, 'chain.json'),
    saveIntervalMs: settings.saveIntervalMs,
  });
  return {
    chain: 'solana',
    network,
    endpoints: [{ url: devnet.url, headers: {} }],
    wsUrl: devnet.wsUrl,
    tokens: { spl: { ...devnet.tokens.spl } },
    faucet: new SolanaDevnetFaucet(devnet),
    stop: () => devnet.close(),
  };
}

/** The devnet the sandbox runs for Solana. */
export const solanaSandboxDevnets: DevnetStarters = { solana: startSolanaSandboxDevnet };
