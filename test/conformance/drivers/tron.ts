// Tron on the run's Tron devnet: amounts in sun, TRC20 for tokens, tronweb signs outside the gateway, the
// devnet's reorg replaces its newest blocks.
import { TronWeb, utils } from 'tronweb';
import { sharedTronDevnet } from '../../helpers/shared-devnets.ts';
import type { ConformanceDriver } from '../driver.ts';
import { listedAddressRoutes, nativeBalanceIn } from './wallet-routes.ts';

const offline = new TronWeb({ fullHost: 'http://127.0.0.1:1' });

export async function tronDriver(): Promise<ConformanceDriver> {
  const devnet = await sharedTronDevnet();
  const usdt = devnet.tokens.trc20.USDT;
  const newKey = () => {
    const account = utils.accounts.generateAccount();
    return { address: account.address.base58, privateKey: account.privateKey.toLowerCase() };
  };
  return {
    chain: 'tron',
    gatewayEnv: { TRON_MAINNET_URLS: devnet.url, TRON_TESTNET_URLS: devnet.url },
    native: { decimals: 6, webhookType: 'TRX' },
    token: {
      contract: usdt,
      decimals: 6,
      webhookType: 'TRC20',
      sendPath: '/transactions/trc20',
      noContract: () => newKey().address,
      // The token's decimals() are read first, and the node says there is no contract.
      unknownContractSend: {
        status: 400,
        message: /^decimals\(\) failed on T\w+: Smart contract is not exist\.$/,
      },
      fund: async (address, units) => {
        await devnet.faucetTrc20(usdt, address, units);
      },
      balance: async (api, address) =>
        BigInt((await api('GET', `/balances/${address}/trc20/${usdt}`)).body.data.balance),
      infoPath: (contract) => `/trc20/${contract}`,
    },
    txid: /^(0x)?[0-9a-f]{64}$/,
    unknownTxid: 'ab'.repeat(32),
    badAddress: 'TNotAnAddress',
    insufficientFunds: /^balance is not sufficient$/,
    wrongPasswordSend: {
      status: 422,
      message: /^Validate signature error: the password does not open the key of T\w+$/,
    },
    newKey,
    addressOf: (privateKey) => String(offline.address.fromPrivateKey(privateKey)),
    fundNative: async (address, sun) => {
      await devnet.faucetTrx(address, sun);
    },
    settle: async () => {
      await devnet.mine(1);
    },
    nativeBalance: nativeBalanceIn('balance'),
    ...listedAddressRoutes,
    signOutside: async (built, key) => ({
      body: { transaction: utils.crypto.signTransaction(key.privateKey, built.data) },
      txid: built.data.txID,
    }),
    reorg: (depth) => devnet.reorg(depth),
    // A Tron sponsor lends energy and bandwidth it has staked (Stake 2.0) rather than burning TRX.
    prepareSponsor: async (api, address, password) => {
      for (const resource of ['ENERGY', 'BANDWIDTH']) {
        const res = await api('POST', '/freeze', { json: { address, amount: '400', resource, password } });
        if (res.status !== 200) throw new Error(`freeze ${resource}: ${res.status} ${res.text}`);
      }
      await devnet.mine(1);
    },
    sponsorLeavesNothing: true,
    gaps: {},
  };
}
