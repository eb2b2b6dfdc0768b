// Solana on the run's Solana devnet: amounts in lamports, SPL tokens through transactions/spl, keys in
// the wallets' base58 form, @solana/kit signs outside the gateway, the devnet's reorg replaces its
// newest blocks.

import {
  createKeyPairFromBytes,
  getBase58Decoder,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  signTransaction,
} from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { sharedSolanaDevnet } from '../../helpers/shared-devnets.ts';
import type { ConformanceDriver } from '../driver.ts';
import { listedAddressRoutes, nativeBalanceIn } from './wallet-routes.ts';

const base58 = getBase58Decoder();

export async function solanaDriver(): Promise<ConformanceDriver> {
  const devnet = await sharedSolanaDevnet();
  const usdt = devnet.tokens.spl.USDT;
  const newKey = () => {
    const keypair = Keypair.generate();
    return { address: keypair.publicKey.toBase58(), privateKey: base58.decode(keypair.secretKey) };
  };
  return {
    chain: 'solana',
    gatewayEnv: { SOLANA_MAINNET_URLS: devnet.url },
    native: { decimals: 9, webhookType: 'SOL' },
    token: {
      contract: usdt,
      decimals: 6,
      webhookType: 'SPL',
      sendPath: '/transactions/spl',
      noContract: () => newKey().address,
      unknownContractSend: { status: 422, message: /is not an SPL token mint$/ },
      fund: async (address, units) => {
        await devnet.faucetSpl(usdt, address, units);
      },
      balance: async (api, address) =>
        BigInt((await api('GET', `/balances/${address}/spl/${usdt}`)).body.data.balance_raw),
      infoPath: (mint) => `/spl/${mint}`,
    },
    txid: /^[1-9A-HJ-NP-Za-km-z]{64,88}$/,
    unknownTxid: '1'.repeat(64),
    badAddress: 'not-a-solana-address',
    insufficientFunds: /^Insufficient funds: /,
    wrongPasswordSend: { status: 401, message: /^Wrong password provided$/ },
    newKey,
    addressOf: (privateKey) =>
      Keypair.fromSecretKey(Uint8Array.from(getBase58Encoder().encode(privateKey))).publicKey.toBase58(),
    fundNative: async (address, lamports) => {
      await devnet.airdrop(address, lamports);
    },
    settle: async () => {
      await devnet.advance(1);
    },
    finalize: async () => {
      await devnet.advance(32);
    },
    nativeBalance: nativeBalanceIn('lamports'),
    ...listedAddressRoutes,
    signOutside: async (built, key) => {
      const unsigned = getTransactionDecoder().decode(getBase64Encoder().encode(built.data.unsigned));
      const keys = await createKeyPairFromBytes(getBase58Encoder().encode(key.privateKey));
      const signed = await signTransaction([keys], unsigned);
      return {
        body: { rawtx: getBase64EncodedWireTransaction(signed) },
        txid: getSignatureFromTransaction(signed),
      };
    },
    reorg: (depth) => devnet.reorg(depth),
    sponsorLeavesNothing: true,
    gaps: {},
  };
}
