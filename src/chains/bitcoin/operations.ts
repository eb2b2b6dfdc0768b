/**
 * Bitcoin's routes under /api/v2/bitcoin, as operations (`chains/operations.ts`): payments from an
 * address or an HD wallet with fee speeds, PSBT builds, raw broadcasts and the wallets
 * (wallet-operations.ts). Import and export in WIF are the shared routes over the family's key forms.
 */
import { Type } from '@sinclair/typebox';
import { WalletPassword } from '../../custody/wallet-fields.ts';
import { ApiError } from '../../errors.ts';
import { addressSchema, type FamilyParts } from '../family.ts';
import {
  broadcastOperation,
  buildOperation,
  type ChainOperation,
  type SendRequest,
  sendOperation,
} from '../operations.ts';
import type { FamilyPorts } from '../ports.ts';
import { bitcoinAddressForm } from './address-form.ts';
import { CoinReservations } from './coin-reservations.ts';
import { MAX_FEE_RATE_SAT_VB, SPEED_TARGETS, SPEEDS } from './fee-speed.ts';
import { BITCOIN_PRIVATE_KEY_FORM } from './keys.ts';
import { BitcoinSends, type CoinSource } from './sends.ts';
import { WalletName, walletOperations } from './wallet-operations.ts';
import { BitcoinWallets } from './wallets.ts';

const BitcoinAddress = addressSchema(bitcoinAddressForm);

const PaymentFields = {
  to: BitcoinAddress,
  amount: Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
    description: 'BTC, at most 8 decimals (e.g. 0.0001)',
    examples: ['0.0001'],
  }),
  speed: Type.Optional(
    Type.Union(
      SPEEDS.map((speed) => Type.Literal(speed)),
      {
        description: `How soon it should confirm, by the node's fee estimate: ${SPEEDS.map((s) => `\`${s}\` within ${SPEED_TARGETS[s]} block${SPEED_TARGETS[s] === 1 ? '' : 's'}`).join(', ')}; \`medium\` when neither speed nor feerate is given`,
      },
    ),
  ),
  feerate: Type.Optional(
    Type.Union([Type.String({ maxLength: 20 }), Type.Number()], {
      description: `An explicit fee rate in sat/vB (1 to ${MAX_FEE_RATE_SAT_VB}, up to 3 decimals), in place of \`speed\``,
      examples: ['2.5'],
    }),
  ),
  subtractfee: Type.Optional(
    Type.Boolean({
      description: 'The receiver pays the fee: `to` gets `amount` less the fee (send all: the whole balance)',
    }),
  ),
};
export const BitcoinPrivateKey = Type.String({
  minLength: 1,
  maxLength: 100,
  description: `Private key, never stored: ${BITCOIN_PRIVATE_KEY_FORM}`,
});
const Sent = Type.Object({
  txid: Type.String(),
  fee: Type.String({ description: 'BTC' }),
  feerate: Type.String({ description: 'sat/vB' }),
  vsize: Type.Integer({ description: 'Virtual size, vbytes' }),
});

const COINS =
  'Coins are chosen to waste the least (branch and bound for an input set that needs no change, else the fewest coins with change back to the sender), among confirmed coins first, then the unconfirmed change of earlier sends by this gateway from the same address or wallet (never other unconfirmed coins); a send spending such change also pays for its unconfirmed ancestors to reach the rate (child pays for parent), and one that would make a chain longer than the 25 transactions the mempool allows, or over 101 kvB, answers 422 `Unconfirmed chain too long: …`. The fee is the fee rate times the exact virtual size; outputs below the dust limit are refused; replace-by-fee (BIP-125) is signalled. Coins another send holds are skipped: a send reserves the coins it chooses, across every gateway instance sharing the database, until an hour after its broadcast (2 minutes when it never gets there; at once when it is refused), so concurrent sends never spend the same coin. Too little answers 422 `Insufficient funds: … BTC missing …`, naming what other sends hold and what is still unconfirmed. An address of another network answers 422.';

export function bitcoinParts({ registry, store, settings, hdWallets }: FamilyPorts): FamilyParts {
  const sends = new BitcoinSends(registry, new CoinReservations(store));
  const wallets = new BitcoinWallets(hdWallets, registry, settings);
  const operations = [...transactionOperations(sends, wallets), ...walletOperations(wallets)];
  return { operations: () => operations, watcherTasks: [] };
}

function transactionOperations(sends: BitcoinSends, wallets: BitcoinWallets): ChainOperation[] {
  return [
    sendOperation({
      path: '/transactions',
      summary: 'Send BTC from an address of yours or from one of your wallets',
      description: `From \`from\` (signed with its \`password\` or with \`privatekey\`) or from \`walletname\` (signed with the wallet's \`password\`, spending the coins of all its addresses). ${COINS} A wrong password answers 422 \`Error: The wallet passphrase entered was incorrect.\`, as Chaingateway documents. Counts one \`transactions\` unit when sent.`,
      body: Type.Object({
        from: Type.Optional(BitcoinAddress),
        walletname: Type.Optional(WalletName),
        ...PaymentFields,
        password: Type.Optional(WalletPassword),
        privatekey: Type.Optional(BitcoinPrivateKey),
      }),
      data: Sent,
      prepare: (caller, { from, walletname, password, privatekey, ...payment }): SendRequest => {
        if (walletname !== undefined) {
          if (from !== undefined) throw eitherFromOrWallet();
          if (password === undefined) {
            throw new ApiError(422, 'The given data was invalid.', [
              { field: 'password', message: 'A wallet send needs the wallet password.' },
            ]);
          }
          const addresses = () => wallets.addresses(caller, walletname);
          return {
            walletPassword: password,
            prepared: sends.fromWallet(caller.network, walletname, addresses, payment),
          };
        }
        if (from === undefined) throw eitherFromOrWallet();
        return {
          proof: { password, privatekey },
          prepared: sends.fromAddress(caller.network, { ...payment, from }),
        };
      },
    }),
    buildOperation({
      path: '/transactions/build',
      summary: 'Build an unsigned payment as a PSBT, to sign elsewhere',
      description: `From \`from\` or from the coins of \`walletname\`. ${COINS} \`psbt\` is a BIP-174 PSBT in base64 with each input's \`witness_utxo\`: bitcoinjs-lib (\`Psbt.fromBase64\`, \`signAllInputs\`, \`finalizeAllInputs\`), @scure/btc-signer or Bitcoin Core (\`walletprocesspsbt\`) sign it; POST the extracted transaction's hex to \`transactions/broadcast\`. Nothing is sent or stored.`,
      body: Type.Object({
        from: Type.Optional(BitcoinAddress),
        walletname: Type.Optional(WalletName),
        ...PaymentFields,
      }),
      data: Type.Object({
        psbt: Type.String({ description: 'Unsigned PSBT, base64' }),
        fee: Type.String({ description: 'BTC' }),
        feerate: Type.String({ description: 'sat/vB' }),
        vsize: Type.Integer({ description: 'Virtual size once signed, vbytes' }),
        amount: Type.String({ description: 'What `to` receives, BTC' }),
        change: Type.String({ description: 'What goes back to the sender, BTC (0 when no change output)' }),
        inputs: Type.Array(
          Type.Object({
            txid: Type.String(),
            vout: Type.Integer(),
            address: Type.String(),
            value: Type.String({ description: 'BTC' }),
          }),
        ),
      }),
      build: (caller, { from, walletname, ...payment }) => {
        if (walletname !== undefined && from === undefined) {
          const coins = async (): Promise<CoinSource> => {
            const addresses = await wallets.addresses(caller, walletname);
            const change = addresses[0];
            if (change === undefined)
              throw new ApiError(422, 'The wallet has no addresses yet, so no coins to send');
            return { addresses, change };
          };
          return sends.build(caller.network, coins, payment);
        }
        if (from !== undefined && walletname === undefined) {
          return sends.build(caller.network, { addresses: [from], change: from }, payment);
        }
        throw eitherFromOrWallet();
      },
    }),
    broadcastOperation({
      path: '/transactions/broadcast',
      summary: 'Broadcast a transaction signed elsewhere',
      description:
        "The signed transaction in hex. The node's refusal (missing or spent inputs, a bad signature, a fee below the relay minimum, dust) answers 422 in its words. Counts one `transactions` unit.",
      body: Type.Object({
        rawtx: Type.String({
          minLength: 2,
          maxLength: 800_000,
          pattern: '^[0-9a-fA-F]+$',
          description: 'The signed transaction, hex (at most 400,000 bytes, the standard size limit)',
        }),
      }),
      txid: Type.String(),
      bodySize: 'signedTransaction',
      signed: ({ network }, { rawtx }) => sends.broadcast(network, rawtx),
    }),
  ];
}

function eitherFromOrWallet(): ApiError {
  return new ApiError(422, 'The given data was invalid.', [
    { field: 'from', message: 'Give either from (an address of yours) or walletname (a wallet of yours).' },
  ]);
}
