/**
 * Chaingateway's Bitcoin wallets, as operations: HD (BIP-84) wallets whose seed is sealed with the wallet
 * password (custody/hd-wallets.ts), named by a ULID, with a fresh receive address on demand and their
 * coins summed over every address. A wallet that still holds coins is not deleted: its seed is the only
 * way to them.
 */
import { Type } from '@sinclair/typebox';
import type { DerivedAddress } from '../../custody/hd-wallets.ts';
import { NewWalletPassword, WalletPassword } from '../../custody/wallet-fields.ts';
import { wrongPasswordIs401 } from '../../custody/wrong-password.ts';
import { ApiError } from '../../errors.ts';
import { assetAmount, formatAmount } from '../amount.ts';
import { type ChainOperation, familyOperation, NO_INPUT } from '../operations.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import { newWalletName, WALLET_NAME_PATTERN } from './wallet-name.ts';
import type { BitcoinWallets } from './wallets.ts';

export const WalletName = Type.String({
  pattern: WALLET_NAME_PATTERN,
  description: 'The wallet name POST /wallets answered (a ULID)',
  examples: ['01HP6FVARVTQES6WW8QHC5WHPT'],
});

const tags = ['bitcoin wallets'];
const WalletParams = Type.Object({ wallet: WalletName });
const Address = Type.Object({
  address: Type.String(),
  index: Type.Integer({ description: 'Its place on the receive chain' }),
  path: Type.String({ description: "BIP-32 path, e.g. m/84'/0'/0'/0/3" }),
  created_at: Type.String(),
});

const btc = (sats: bigint) => formatAmount(sats, BTC_DECIMALS);
const addressAnswer = (derived: DerivedAddress) => ({
  address: derived.address,
  index: derived.index,
  path: derived.path,
  created_at: derived.createdAt,
});

export function walletOperations(wallets: BitcoinWallets): ChainOperation[] {
  const { hdWallets } = wallets;
  return [
    familyOperation({
      method: 'POST',
      path: '/wallets',
      summary: 'Create an HD wallet',
      description:
        "A BIP-84 wallet (native segwit, m/84'/0'/0' on mainnet, m/84'/1'/0' on the test networks) whose seed is sealed with `password` (scrypt + AES-256-GCM) and never stored in plain text. Its first receive address is made at once (it counts against the addresses quota). Give `mnemonic` to restore a wallet from its BIP-39 words.",
      tags,
      input: {
        params: NO_INPUT,
        querystring: NO_INPUT,
        body: Type.Object({
          password: NewWalletPassword,
          label: Type.Optional(Type.String({ maxLength: 100 })),
          mnemonic: Type.Optional(
            Type.String({ maxLength: 300, description: 'BIP-39 words (English) of a wallet to restore' }),
          ),
        }),
      },
      data: Type.Object({ bitcoinwallet: WalletName }),
      status: 201,
      message: 'Wallet created',
      errors: [404, 422],
      run: async (caller, { body: { password, label, mnemonic } }) => {
        wallets.adapter(caller.network);
        const name = newWalletName();
        const scope = wallets.scope(caller);
        await hdWallets.create(scope, { name, label, password, mnemonic });
        await hdWallets.deriveAddress(scope, name);
        return { bitcoinwallet: name };
      },
    }),
    familyOperation({
      method: 'GET',
      path: '/wallets',
      summary: 'Your wallets on this network',
      tags,
      input: { params: NO_INPUT, querystring: NO_INPUT, body: NO_INPUT },
      data: Type.Object({ wallets: Type.Array(WalletName) }),
      message: 'Wallets fetched',
      run: async (caller) => {
        const listed = await hdWallets.list(caller);
        return { wallets: listed.map((wallet) => wallet.name) };
      },
    }),
    familyOperation({
      method: 'GET',
      path: '/wallets/:wallet',
      summary:
        'A wallet: its newest receive address, what its addresses hold and how many transactions touched them',
      description:
        '`transactions` counts per address: a transaction between two of its addresses counts twice.',
      tags,
      input: { params: WalletParams, querystring: NO_INPUT, body: NO_INPUT },
      data: Type.Object({
        name: WalletName,
        address: Type.String({ description: 'The newest receive address' }),
        addresses: Type.Integer({ description: 'How many receive addresses it has' }),
        balance: Type.String({ description: 'Confirmed, BTC' }),
        unconfirmed: Type.String({
          description: 'What unconfirmed transactions add (negative: spend), BTC',
        }),
        transactions: Type.Integer(),
        label: Type.Union([Type.String(), Type.Null()]),
        created_at: Type.String(),
        updated_at: Type.String(),
      }),
      message: 'Wallet fetched',
      errors: [404, 502, 503],
      run: async (caller, { params }) => {
        const wallet = await hdWallets.get(caller, params.wallet);
        const addresses = await wallets.addresses(caller, params.wallet);
        const held = await wallets.holdings(caller.network, addresses);
        return {
          name: wallet.name,
          address: addresses.at(-1) ?? '',
          addresses: addresses.length,
          balance: assetAmount(held.confirmed, BTC_DECIMALS),
          unconfirmed: assetAmount(held.unconfirmed, BTC_DECIMALS),
          transactions: held.transactions,
          label: wallet.label,
          created_at: wallet.createdAt,
          updated_at: wallet.updatedAt,
        };
      },
    }),
    familyOperation({
      method: 'DELETE',
      path: '/wallets/:wallet',
      summary: 'Delete a wallet that holds nothing',
      description:
        'Its sealed seed and addresses are forgotten. A wallet whose addresses still hold coins (confirmed or not) answers 422: send them away first, or export the seed.',
      tags,
      input: { params: WalletParams, querystring: NO_INPUT, body: NO_INPUT },
      data: Type.Array(Type.Never()),
      message: 'Wallet deleted',
      errors: [404, 422, 502, 503],
      run: async (caller, { params }) => {
        await hdWallets.get(caller, params.wallet);
        const held = await wallets.holdings(caller.network, await wallets.addresses(caller, params.wallet));
        if (held.confirmed > 0n || held.unconfirmed > 0n) {
          throw new ApiError(
            422,
            `The wallet still holds ${btc(held.confirmed)} BTC (${btc(held.unconfirmed)} BTC unconfirmed): send it away or export the seed first`,
          );
        }
        await hdWallets.remove(caller, params.wallet);
        return [];
      },
    }),
    familyOperation({
      method: 'GET',
      path: '/wallets/:wallet/addresses',
      summary: "A wallet's receive addresses",
      description:
        '`address` is the newest, as Chaingateway answers; `addresses` lists them all, oldest first.',
      tags,
      input: { params: WalletParams, querystring: NO_INPUT, body: NO_INPUT },
      data: Type.Object({ address: Type.String(), addresses: Type.Array(Address) }),
      message: 'Addresses fetched',
      errors: [404],
      run: async (caller, { params }) => {
        const derived = await hdWallets.addresses(wallets.scope(caller), params.wallet);
        const addresses = derived.map(addressAnswer);
        return { address: addresses.at(-1)?.address ?? '', addresses };
      },
    }),
    familyOperation({
      method: 'POST',
      path: '/wallets/:wallet/addresses',
      summary: 'A fresh receive address of a wallet',
      description:
        "The next address on the wallet's receive chain, derived from its account's public key (no password needed). Counts against the addresses quota.",
      tags,
      input: { params: WalletParams, querystring: NO_INPUT, body: NO_INPUT },
      data: Address,
      status: 201,
      message: 'Address created',
      errors: [404, 422],
      run: async (caller, { params }) =>
        addressAnswer(await hdWallets.deriveAddress(wallets.scope(caller), params.wallet)),
    }),
    familyOperation({
      method: 'POST',
      path: '/wallets/:wallet/export',
      summary: "A wallet's seed, to restore it in any BIP-84 wallet",
      description:
        'The BIP-39 mnemonic and the root extended private key, with the account path. A wrong password answers 401 `Wrong password provided`.',
      tags,
      input: { params: WalletParams, querystring: NO_INPUT, body: Type.Object({ password: WalletPassword }) },
      data: Type.Object({ mnemonic: Type.String(), xprv: Type.String(), accountPath: Type.String() }),
      message: 'Wallet exported',
      errors: [401, 404],
      run: (caller, { params, body }) =>
        wrongPasswordIs401(() => hdWallets.exportSecret(wallets.scope(caller), params.wallet, body.password)),
    }),
    familyOperation({
      method: 'PUT',
      path: '/wallets/:wallet/password',
      summary: "Change a wallet's password",
      description: 'A wrong old_password answers 401 `Wrong password provided`.',
      tags,
      input: {
        params: WalletParams,
        querystring: NO_INPUT,
        body: Type.Object({ old_password: WalletPassword, new_password: NewWalletPassword }),
      },
      data: Type.Array(Type.Never()),
      message: 'Password changed',
      errors: [401, 404],
      run: async (caller, { params, body }) => {
        await wrongPasswordIs401(() =>
          hdWallets.changePassword(
            wallets.scope(caller),
            params.wallet,
            body.old_password,
            body.new_password,
          ),
        );
        return [];
      },
    }),
  ];
}
