import { type EvmDevnet, startEvmDevnet } from '../../../devnets/evm/index.ts';
import { ApiError, invalidField } from '../../errors.ts';
import { type Faucet, type FaucetRequest, type FaucetResult, mintable, payOut } from '../faucets.ts';
import type { DevnetSettings, DevnetStarter, DevnetStarters, RunningDevnet } from '../sandbox-devnet.ts';
import type { ChainName, Network } from '../types.ts';
import { evmChains } from './chains.ts';
import { checksumAddress, isEvmAddress } from './keys.ts';

/** The devnet's USDT has 6 decimals, like mainnet USDT. */
const USDT_DECIMALS = 6;
/** Left in the faucet account for the gas of its own sends. */
const GAS_RESERVE_WEI = 10n ** 16n;

/** Native coin or the demo tokens, from anvil's dev account, mined at once. */
class EvmDevnetFaucet implements Faucet {
  constructor(
    private readonly devnet: EvmDevnet,
    private readonly symbol: string,
  ) {}

  async fund(request: FaucetRequest): Promise<FaucetResult> {
    if (!isEvmAddress(request.address))
      throw invalidField('address', 'The address field must be an address.');
    const address = checksumAddress(request.address);
    const contract = request.contractaddress?.toLowerCase();
    const { erc20, erc721 } = this.devnet.tokens;
    if (contract === undefined || contract === '') {
      return payOut(request, address, {
        decimals: 18,
        symbol: this.symbol,
        contractaddress: null,
        most: async () => {
          const { faucetAccount } = this.devnet;
          const balance = await this.devnet.rpc<string>('eth_getBalance', [faucetAccount.address, 'latest']);
          return BigInt(balance) - GAS_RESERVE_WEI;
        },
        send: (wei) => this.devnet.faucetNative(address, wei),
      });
    }
    if (contract === erc20.USDT.toLowerCase()) {
      return payOut(request, address, {
        decimals: USDT_DECIMALS,
        symbol: 'USDT',
        contractaddress: erc20.USDT,
        most: mintable(USDT_DECIMALS),
        send: (units) => this.devnet.faucetErc20(erc20.USDT, address, units),
      });
    }
    if (contract === erc721.NFT.toLowerCase()) {
      const tokenId = await this.devnet.faucetErc721(erc721.NFT, address);
      return { address, amount: '1', symbol: `NFT #${tokenId}`, contractaddress: erc721.NFT, txid: null };
    }
    throw new ApiError(422, 'The faucet sends the native coin or the demo tokens listed in sandbox.json', [
      { field: 'contractaddress', message: 'Not a demo token of this devnet.' },
    ]);
  }
}

/**
 * A real anvil node for one EVM chain and network, with its real chain id and the demo tokens. A
 * transaction is mined at once, and blocks come every few seconds besides, as on a real chain, so that
 * confirmations count up. The chain is kept in `dir`.
 */
export function evmSandboxDevnet(chain: ChainName, symbol: string): DevnetStarter {
  return async (network: Network, dir: string, settings: DevnetSettings): Promise<RunningDevnet> => {
    const devnet = await startEvmDevnet({
      chain,
      network,
      stateDir: dir,
      saveIntervalMs: settings.saveIntervalMs,
      ...(settings.evmBlockTime > 0 ? { blockTime: settings.evmBlockTime, mixedMining: true } : {}),
    });
    return {
      chain,
      network,
      endpoints: [{ url: devnet.url, headers: {} }],
      wsUrl: devnet.wsUrl,
      tokens: Object.fromEntries(
        Object.entries(devnet.tokens).map(([standard, tokens]) => [standard, { ...tokens }]),
      ),
      faucet: new EvmDevnetFaucet(devnet, symbol),
      stop: () => devnet.close(),
    };
  };
}

/** The devnets the sandbox runs for every EVM chain served (an operator's too), each with its native coin. */
export function evmSandboxDevnets(): DevnetStarters {
  return Object.fromEntries(
    [...evmChains().values()].map(({ chain, nativeSymbol }) => [
      chain,
      evmSandboxDevnet(chain, nativeSymbol),
    ]),
  );
}
