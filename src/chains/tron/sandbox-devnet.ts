import path from 'node:path';
import { startTronDevnet, type TronDevnet } from '../../../devnets/tron/index.ts';
import { ApiError, invalidField } from '../../errors.ts';
import { type Faucet, type FaucetRequest, type FaucetResult, mintable, payOut } from '../faucets.ts';
import type { DevnetSettings, DevnetStarters, RunningDevnet } from '../sandbox-devnet.ts';
import type { Network } from '../types.ts';
import { isTronAddress, toBase58Address } from './address.ts';
import { TRON_NETWORK_IDS } from './probe.ts';

/** The demo tokens' decimals: the devnet's USDT and TRC10 asset both have 6, like mainnet USDT. */
const DEMO_DECIMALS = 6;
/** Left in the faucet account for the fees of its own sends. */
const FEE_RESERVE_SUN = 1_000_000n;

/** Sends TRX or a demo token from the devnet's genesis faucet; funds arrive in a block at once. */
class TronDevnetFaucet implements Faucet {
  constructor(private readonly devnet: TronDevnet) {}

  async fund(request: FaucetRequest): Promise<FaucetResult> {
    if (!isTronAddress(request.address))
      throw invalidField('address', 'The address field must be a Tron address.');
    const address = toBase58Address(request.address);
    const { tokens } = this.devnet;
    const contract = request.contractaddress;
    if (contract === undefined || contract === '') {
      return payOut(request, address, {
        decimals: 6,
        symbol: 'TRX',
        contractaddress: null,
        most: async () => (await this.faucetAccount()).balance - FEE_RESERVE_SUN,
        send: (sun) => this.devnet.faucetTrx(address, sun),
      });
    }
    if (contract === tokens.trc20.USDT) {
      return payOut(request, address, {
        decimals: DEMO_DECIMALS,
        symbol: 'USDT',
        contractaddress: contract,
        most: mintable(DEMO_DECIMALS),
        send: (units) => this.devnet.faucetTrc20(contract, address, units),
      });
    }
    if (contract === tokens.trc721.NFT) {
      const tokenId = await this.devnet.faucetTrc721(contract, address);
      return { address, amount: '1', symbol: `NFT #${tokenId}`, contractaddress: contract, txid: null };
    }
    const trc10 = Object.entries(tokens.trc10).find(([, id]) => id === contract);
    if (trc10) {
      return payOut(request, address, {
        decimals: DEMO_DECIMALS,
        symbol: trc10[0],
        contractaddress: contract,
        most: async () => (await this.faucetAccount()).assets.get(contract) ?? 0n,
        send: (units) => this.devnet.faucetTrc10(contract, address, units),
      });
    }
    throw new ApiError(422, 'The faucet sends TRX or the demo tokens listed in sandbox.json', [
      { field: 'contractaddress', message: 'Not a demo token of this devnet.' },
    ]);
  }

  /** What the faucet account holds, read from the devnet as any client would. */
  private async faucetAccount(): Promise<{ balance: bigint; assets: Map<string, bigint> }> {
    const response = await fetch(`${this.devnet.url}/wallet/getaccount`, {
      method: 'POST',
      body: JSON.stringify({ address: this.devnet.faucet.address, visible: true }),
    });
    const account = (await response.json()) as {
      balance?: number;
      assetV2?: { key: string; value?: number }[];
    };
    const assets = new Map((account.assetV2 ?? []).map((a) => [a.key, BigInt(a.value ?? 0)]));
    return { balance: BigInt(account.balance ?? 0), assets };
  }
}

/**
 * One Tron devnet per network, blocks every 3 s, with its demo tokens; its chain is kept in `dir`. It
 * reports the network id of the network it stands for, so the gateway's network check accepts it.
 */
export async function startTronSandboxDevnet(
  network: Network,
  dir: string,
  settings: DevnetSettings,
): Promise<RunningDevnet> {
  const devnet = await startTronDevnet({
    blockIntervalMs: 3000,
    snapshotFile: path.join(dir, 'chain.json'),
    saveIntervalMs: settings.saveIntervalMs,
    p2pVersion: TRON_NETWORK_IDS[network][0]!.id,
  });
  return {
    chain: 'tron',
    network,
    endpoints: [{ url: devnet.url, headers: {} }],
    tokens: {
      trc20: { ...devnet.tokens.trc20 },
      trc721: { ...devnet.tokens.trc721 },
      trc10: { ...devnet.tokens.trc10 },
    },
    faucet: new TronDevnetFaucet(devnet),
    stop: () => devnet.close(),
  };
}

/** The devnet the sandbox runs for Tron. */
export const tronSandboxDevnets: DevnetStarters = { tron: startTronSandboxDevnet };
