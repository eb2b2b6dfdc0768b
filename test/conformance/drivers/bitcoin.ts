// Bitcoin on the run's Bitcoin devnet (as mainnet): amounts in satoshis, keys as WIF, no tokens (their
// scenarios do not apply), bitcoinjs-lib signs the build's PSBT outside the gateway, and the devnet's
// reorg replaces its newest blocks with empty ones and drops their transactions.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32 } from '@scure/base';
import { crypto as bitcoinCrypto, networks, Psbt } from 'bitcoinjs-lib';
import { sharedBitcoinDevnet } from '../../helpers/shared-devnets.ts';
import { decodeWif, encodeWif } from '../../helpers/wif.ts';
import type { ConformanceDriver } from '../driver.ts';
import { listedAddressRoutes, nativeBalanceIn } from './wallet-routes.ts';

/** The P2WPKH address of a compressed public key on mainnet. */
function addressOfPublicKey(publicKey: Uint8Array): string {
  return bech32.encode('bc', [0, ...bech32.toWords(bitcoinCrypto.hash160(publicKey))]);
}

export async function bitcoinDriver(): Promise<ConformanceDriver> {
  const devnet = await sharedBitcoinDevnet();
  const newKey = () => {
    const secret = secp256k1.utils.randomSecretKey();
    return {
      address: addressOfPublicKey(secp256k1.getPublicKey(secret, true)),
      privateKey: encodeWif(secret),
    };
  };
  return {
    chain: 'bitcoin',
    gatewayEnv: { BITCOIN_MAINNET_URLS: devnet.url },
    native: { decimals: 8, webhookType: 'BTC' },
    txid: /^[0-9a-f]{64}$/,
    unknownTxid: 'ab'.repeat(32),
    badAddress: 'not-a-bitcoin-address',
    insufficientFunds: /^Insufficient funds: /,
    wrongPasswordSend: { status: 422, message: /^Error: The wallet passphrase entered was incorrect\.$/ },
    newKey,
    addressOf: (wif) => addressOfPublicKey(secp256k1.getPublicKey(decodeWif(wif), true)),
    fundNative: async (address, sats) => {
      await devnet.faucet(address, sats);
      await devnet.mine(1);
    },
    settle: async () => {
      await devnet.mine(2);
    },
    nativeBalance: nativeBalanceIn('balance_sats'),
    ...listedAddressRoutes,
    signOutside: async (built, key) => {
      const secret = decodeWif(key.privateKey);
      const psbt = Psbt.fromBase64(built.data.psbt, { network: networks.bitcoin });
      psbt.signAllInputs({
        publicKey: secp256k1.getPublicKey(secret, true),
        sign: (digest) => secp256k1.sign(digest, secret, { prehash: false }),
      });
      psbt.finalizeAllInputs();
      const tx = psbt.extractTransaction();
      return { body: { rawtx: tx.toHex() }, txid: tx.getId() };
    },
    reorg: (depth) => devnet.reorg(depth, true),
    sponsorLeavesNothing: false,
    gaps: {},
  };
}
