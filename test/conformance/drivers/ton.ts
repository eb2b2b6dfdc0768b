// TON on a TON devnet of its own (started by the test file): amounts in nanotons, USDT as a TEP-74 jetton
// through transactions/jetton, keys as 32-byte ed25519 seeds, @ton/ton signs a build outside the gateway.

import { randomBytes } from 'node:crypto';
import { type Address, beginCell, type Cell } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV5R1 } from '@ton/ton';
import { MAINNET_GLOBAL_ID, type TonDevnet } from '../../../devnets/ton/index.ts';
import { type BuiltTonTransfer, signBuiltTransfer } from '../../helpers/ton-signing.ts';
import type { ConformanceDriver } from '../driver.ts';
import { listedAddressRoutes, nativeBalanceIn } from './wallet-routes.ts';

/** The V5R1 wallet of a 32-byte seed on mainnet, as a wallet shows it (non-bounceable). */
function walletOf(seedHex: string) {
  const keys = keyPairFromSeed(Buffer.from(seedHex, 'hex'));
  const wallet = WalletContractV5R1.create({
    workchain: 0,
    publicKey: keys.publicKey,
    walletId: { networkGlobalId: MAINNET_GLOBAL_ID },
  });
  return { keys, wallet, address: wallet.address.toString({ bounceable: false }) };
}

/**
 * TEP-467's normalized hash of an external message to `to` with `body`: no source, no import fee, no
 * state init, the body in a reference; what a wallet's send is looked up by.
 */
function normalizedHash(to: Address, body: Cell): string {
  const normalized = beginCell()
    .storeUint(0b10, 2)
    .storeUint(0, 2)
    .storeAddress(to)
    .storeCoins(0)
    .storeBit(0)
    .storeBit(1)
    .storeRef(body)
    .endCell();
  return normalized.hash().toString('hex');
}

/** The storage fees the account's transactions collected, as the devnet's indexer reports them. */
async function rentPaid(devnet: TonDevnet, address: string): Promise<bigint> {
  const response = await fetch(`${devnet.url}/api/v3/transactions?account=${address}&limit=1000`);
  const { transactions } = (await response.json()) as {
    transactions: { description: { storage_ph?: { storage_fees_collected: string } } }[];
  };
  return transactions.reduce(
    (sum, tx) => sum + BigInt(tx.description.storage_ph?.storage_fees_collected ?? '0'),
    0n,
  );
}

export function tonDriver(devnet: TonDevnet): ConformanceDriver {
  const usdt = devnet.tokens.jetton.USDT;
  const newKey = () => {
    const privateKey = randomBytes(32).toString('hex');
    return { address: walletOf(privateKey).address, privateKey };
  };
  return {
    chain: 'ton',
    gatewayEnv: { TON_MAINNET_URLS: devnet.url },
    native: { decimals: 9, webhookType: 'TON' },
    token: {
      contract: usdt,
      decimals: 6,
      webhookType: 'JETTON',
      sendPath: '/transactions/jetton',
      noContract: () => newKey().address,
      unknownContractSend: { status: 422, message: /^Data validation failed$/ },
      fund: async (address, units) => {
        await devnet.mintJetton(usdt, address, units);
      },
      balance: async (api, address) =>
        BigInt((await api('GET', `/balances/${address}/jetton/${usdt}`)).body.data.balance_raw),
      infoPath: (master) => `/jetton/${master}`,
    },
    txid: /^[0-9a-f]{64}$/,
    unknownTxid: 'ab'.repeat(32),
    badAddress: 'not-a-ton-address',
    insufficientFunds: /^Insufficient funds: /,
    wrongPasswordSend: { status: 401, message: /^Wrong password provided$/ },
    newKey,
    addressOf: (privateKey) => walletOf(privateKey).address,
    fundNative: async (address, nanotons) => {
      await devnet.fund(address, nanotons);
    },
    settle: () => devnet.advance(2),
    nativeBalance: nativeBalanceIn('nanotons'),
    // TON takes rent from an account's balance at each of its transactions (a few nanotons here): what
    // it was paid is its balance and the rent its transactions collected.
    received: async (api, address) =>
      (await nativeBalanceIn('nanotons')(api, address)) + (await rentPaid(devnet, address)),
    ...listedAddressRoutes,
    buildFields: (key) => ({ publickey: walletOf(key.privateKey).keys.publicKey.toString('hex') }),
    signOutside: async (built, key) => {
      const { keys, wallet } = walletOf(key.privateKey);
      const { boc, body } = signBuiltTransfer(built.data.transfer as BuiltTonTransfer, keys);
      return { body: { boc }, txid: normalizedHash(wallet.address, body) };
    },
    sponsorLeavesNothing: true,
    gaps: {
      'webhook reverted when a reorg drops a notified transfer':
        'a TON masterchain block is final once it exists: no reorg to revert',
    },
  };
}
