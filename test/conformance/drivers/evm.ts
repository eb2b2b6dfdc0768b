// An EVM chain on the run's anvil for it: amounts in wei, the chain's ERC20 route (BEP20 on BSC) for
// tokens, viem signs outside the gateway, anvil_reorg drops blocks.
import { randomBytes } from 'node:crypto';
import { getAddress, keccak256, parseTransaction, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount, signTransaction } from 'viem/accounts';
import type { EvmDevnet } from '../../../devnets/evm/index.ts';
import { evmChain } from '../../../src/chains/evm/chains.ts';
import type { ChainName } from '../../../src/chains/types.ts';
import { sharedEvmDevnet } from '../../helpers/shared-devnets.ts';
import type { SharedEvmChain } from '../../helpers/shared-evm-chains.ts';
import type { ConformanceDriver } from '../driver.ts';

/** What the driver does on the chain's anvil: the run's shared one, or one a test started itself. */
export type EvmDriverDevnet = Pick<
  EvmDevnet,
  'url' | 'tokens' | 'faucetNative' | 'faucetErc20' | 'mine' | 'reorg'
>;

/** The driver of a shipped chain, on the run's anvil for it. */
export async function sharedEvmDriver(chain: SharedEvmChain): Promise<ConformanceDriver> {
  return evmDriver(chain, await sharedEvmDevnet(chain));
}

/** The driver of any served EVM chain (one of a test's own chain file too), on `devnet`. */
export function evmDriver(chain: ChainName, devnet: EvmDriverDevnet): ConformanceDriver {
  const usdt = devnet.tokens.erc20.USDT;
  const { nativeSymbol, tokenSegments } = evmChain(chain);
  const segment = tokenSegments.fungible;
  const readUnits = (text: string, decimals: number) => parseUnits(text, decimals);
  return {
    chain,
    gatewayEnv: { [`${chain.toUpperCase()}_MAINNET_URLS`]: devnet.url },
    native: { decimals: 18, webhookType: nativeSymbol },
    token: {
      contract: usdt,
      decimals: 6,
      webhookType: segment.toUpperCase(),
      sendPath: `/transactions/${segment}`,
      noContract: () => getAddress(`0x${randomBytes(20).toString('hex')}`),
      unknownContractSend: { status: 422, message: /not a token contract/ },
      fund: async (address, units) => {
        await devnet.faucetErc20(usdt, address, units);
      },
      balance: async (api, address) =>
        readUnits((await api('GET', `/balances/${address}/${segment}/${usdt}`)).body.data, 6),
      infoPath: (contract) => `/${segment}/${contract}`,
    },
    txid: /^(0x)?[0-9a-f]{64}$/,
    unknownTxid: `0x${'ab'.repeat(32)}`,
    badAddress: '0x1234',
    insufficientFunds: /insufficient funds for gas \* price \+ value/i,
    wrongPasswordSend: { status: 401, message: /^Wrong password provided$/ },
    newKey: () => {
      const privateKey = generatePrivateKey();
      return { address: privateKeyToAccount(privateKey).address, privateKey };
    },
    addressOf: (privateKey) => privateKeyToAccount(`0x${privateKey.replace(/^0x/, '')}`).address,
    fundNative: async (address, wei) => {
      await devnet.faucetNative(address, wei);
    },
    settle: async () => {
      await devnet.mine(1);
    },
    nativeBalance: async (api, address) =>
      readUnits((await api('GET', `/balances/${address}`)).body.data, 18),
    createdAddress: (body) => body.data[0].address,
    importedAddress: (body) => body.data.address,
    exportKey: async (api, address, password) => {
      const response = await api('POST', `/addresses/export/${address}/privatekey`, { json: { password } });
      return { response, privateKey: response.body?.data?.private_key };
    },
    signOutside: async (built, key) => {
      const rawtx = await signTransaction({
        privateKey: `0x${key.privateKey.replace(/^0x/, '')}`,
        transaction: parseTransaction(built.data.unsigned),
      });
      return { body: { rawtx }, txid: keccak256(rawtx) };
    },
    reorg: (depth) => devnet.reorg(depth),
    sponsorLeavesNothing: false,
    gaps: {},
  };
}
