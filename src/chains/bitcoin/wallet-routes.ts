/**
 * Chaingateway's Bitcoin wallets: HD (BIP-84) wallets whose seed is sealed with the wallet password
 * (custody/hd-wallets.ts), named by a ULID, with a fresh receive address on demand and their coins summed
 * over every address. A wallet that still holds coins is not deleted: its seed is the only way to them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { HdScope } from '../../custody/hd-wallets.ts';
import { ApiError } from '../../errors.ts';
import { sendOk } from '../../http/envelope.ts';
import { routeSchema } from '../../http/route-schema.ts';
import { NewWalletPassword, WalletPassword } from '../../http/wallet-fields.ts';
import { wrongPasswordIs401 } from '../../services/address-custody.ts';
import type { SendScope } from '../../services/send-pipeline.ts';
import { formatAmount } from '../amount.ts';
import type { SharedServices } from '../family.ts';
import type { BitcoinAdapter } from './adapter.ts';
import { BTC_DECIMALS } from './btc-amount.ts';
import { bip84Keys } from './hd-keys.ts';
import { bitcoinNetworkOf } from './networks.ts';
import { newWalletName, WALLET_NAME_PATTERN } from './wallet-name.ts';

export const WalletName = Type.String({
  pattern: WALLET_NAME_PATTERN,
  description: 'The wallet name POST /wallets answered (a ULID)',
  examples: ['01HP6FVARVTQES6WW8QHC5WHPT'],
});

/** One of the caller's wallets, with what reaching it needs. */
export interface WalletSource {
  shared: SharedServices;
  scope: SendScope;
  wallet: string;
}

/** The most addresses whose balances a wallet read asks the node for at once. */
const BALANCE_READS_AT_ONCE = 4;

const btc = (sats: bigint) => formatAmount(sats, BTC_DECIMALS);

function hdScope({ shared, scope }: Pick<WalletSource, 'shared' | 'scope'>): HdScope {
  return { ...scope, codec: bip84Keys(bitcoinNetworkOf(scope.network, shared.config.familySettings)) };
}

/** The wallet's addresses, oldest first. */
export async function walletAddresses(source: WalletSource): Promise<string[]> {
  const derived = await source.shared.hdWallets.addresses(hdScope(source), source.wallet);
  return derived.map((address) => address.address);
}

/** What the wallet's addresses hold, confirmed and in the mempool, and how many transactions touched them. */
async function walletBalance(adapter: BitcoinAdapter, addresses: readonly string[]) {
  let confirmed = 0n;
  let unconfirmed = 0n;
  let transactions = 0;
  for (let i = 0; i < addresses.length; i += BALANCE_READS_AT_ONCE) {
    const read = await Promise.all(
      addresses.slice(i, i + BALANCE_READS_AT_ONCE).map((address) => adapter.backend.balance(address)),
    );
    for (const balance of read) {
      confirmed += balance.confirmed;
      unconfirmed += balance.unconfirmed;
      transactions += balance.txCount;
    }
  }
  return { confirmed, unconfirmed, transactions };
}

const Address = Type.Object({
  address: Type.String(),
  index: Type.Integer({ description: 'Its place on the receive chain' }),
  path: Type.String({ description: "BIP-32 path, e.g. m/84'/0'/0'/0/3" }),
  created_at: Type.String(),
});

export const bitcoinWalletRoutes: FastifyPluginAsyncTypebox<{ shared: SharedServices }> = async (
  app,
  { shared },
) => {
  const tags = ['bitcoin wallets'];
  const source = (request: FastifyRequest, wallet: string): WalletSource => ({
    shared,
    scope: { userId: request.userId, chain: 'bitcoin', network: request.network },
    wallet,
  });
  const adapter = (request: FastifyRequest) =>
    shared.registry.get<BitcoinAdapter>('bitcoin', request.network);
  const WalletParams = Type.Object({ wallet: WalletName });

  app.post(
    '/wallets',
    {
      schema: routeSchema({
        summary: 'Create an HD wallet',
        description:
          "A BIP-84 wallet (native segwit, m/84'/0'/0' on mainnet, m/84'/1'/0' on the test networks) whose seed is sealed with `password` (scrypt + AES-256-GCM) and never stored in plain text. Its first receive address is made at once (it counts against the addresses quota). Give `mnemonic` to restore a wallet from its BIP-39 words.",
        tags,
        body: Type.Object({
          password: NewWalletPassword,
          label: Type.Optional(Type.String({ maxLength: 100 })),
          mnemonic: Type.Optional(
            Type.String({ maxLength: 300, description: 'BIP-39 words (English) of a wallet to restore' }),
          ),
        }),
        data: Type.Object({ bitcoinwallet: WalletName }),
        status: 201,
        errors: [404, 422],
      }),
    },
    async (request, reply) => {
      adapter(request);
      const name = newWalletName();
      const scope = hdScope(source(request, name));
      const { password, label, mnemonic } = request.body;
      await shared.hdWallets.create(scope, { name, label, password, mnemonic });
      await shared.hdWallets.deriveAddress(scope, name);
      return sendOk(reply, { bitcoinwallet: name }, 'Wallet created', 201);
    },
  );

  app.get(
    '/wallets',
    {
      schema: routeSchema({
        summary: 'Your wallets on this network',
        tags,
        data: Type.Object({ wallets: Type.Array(WalletName) }),
      }),
    },
    async (request, reply) => {
      const wallets = await shared.hdWallets.list(source(request, '').scope);
      return sendOk(reply, { wallets: wallets.map((wallet) => wallet.name) }, 'Wallets fetched');
    },
  );

  app.get(
    '/wallets/:wallet',
    {
      schema: routeSchema({
        summary:
          'A wallet: its newest receive address, what its addresses hold and how many transactions touched them',
        description:
          '`transactions` counts per address: a transaction between two of its addresses counts twice.',
        tags,
        params: WalletParams,
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
        errors: [404, 502, 503],
      }),
    },
    async (request, reply) => {
      const from = source(request, request.params.wallet);
      const wallet = await shared.hdWallets.get(from.scope, from.wallet);
      const addresses = await walletAddresses(from);
      const held = await walletBalance(adapter(request), addresses);
      return sendOk(
        reply,
        {
          name: wallet.name,
          address: addresses.at(-1) ?? '',
          addresses: addresses.length,
          balance: btc(held.confirmed),
          unconfirmed: btc(held.unconfirmed),
          transactions: held.transactions,
          label: wallet.label,
          created_at: wallet.createdAt,
          updated_at: wallet.updatedAt,
        },
        'Wallet fetched',
      );
    },
  );

  app.delete(
    '/wallets/:wallet',
    {
      schema: routeSchema({
        summary: 'Delete a wallet that holds nothing',
        description:
          'Its sealed seed and addresses are forgotten. A wallet whose addresses still hold coins (confirmed or not) answers 422: send them away first, or export the seed.',
        tags,
        params: WalletParams,
        data: Type.Array(Type.Never()),
        errors: [404, 422, 502, 503],
      }),
    },
    async (request, reply) => {
      const from = source(request, request.params.wallet);
      await shared.hdWallets.get(from.scope, from.wallet);
      const held = await walletBalance(adapter(request), await walletAddresses(from));
      if (held.confirmed > 0n || held.unconfirmed > 0n) {
        throw new ApiError(
          422,
          `The wallet still holds ${btc(held.confirmed)} BTC (${btc(held.unconfirmed)} BTC unconfirmed): send it away or export the seed first`,
        );
      }
      await shared.hdWallets.remove(from.scope, from.wallet);
      return sendOk(reply, [], 'Wallet deleted');
    },
  );

  app.get(
    '/wallets/:wallet/addresses',
    {
      schema: routeSchema({
        summary: "A wallet's receive addresses",
        description:
          '`address` is the newest, as Chaingateway answers; `addresses` lists them all, oldest first.',
        tags,
        params: WalletParams,
        data: Type.Object({ address: Type.String(), addresses: Type.Array(Address) }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const from = source(request, request.params.wallet);
      const derived = await shared.hdWallets.addresses(hdScope(from), from.wallet);
      const addresses = derived.map((d) => ({
        address: d.address,
        index: d.index,
        path: d.path,
        created_at: d.createdAt,
      }));
      return sendOk(reply, { address: addresses.at(-1)?.address ?? '', addresses }, 'Addresses fetched');
    },
  );

  app.post(
    '/wallets/:wallet/addresses',
    {
      schema: routeSchema({
        summary: 'A fresh receive address of a wallet',
        description:
          "The next address on the wallet's receive chain, derived from its account's public key (no password needed). Counts against the addresses quota.",
        tags,
        params: WalletParams,
        data: Address,
        status: 201,
        errors: [404, 422],
      }),
    },
    async (request, reply) => {
      const from = source(request, request.params.wallet);
      const derived = await shared.hdWallets.deriveAddress(hdScope(from), from.wallet);
      return sendOk(
        reply,
        { address: derived.address, index: derived.index, path: derived.path, created_at: derived.createdAt },
        'Address created',
        201,
      );
    },
  );

  app.post(
    '/wallets/:wallet/export',
    {
      schema: routeSchema({
        summary: "A wallet's seed, to restore it in any BIP-84 wallet",
        description:
          'The BIP-39 mnemonic and the root extended private key, with the account path. A wrong password answers 401 `Wrong password provided`.',
        tags,
        params: WalletParams,
        body: Type.Object({ password: WalletPassword }),
        data: Type.Object({ mnemonic: Type.String(), xprv: Type.String(), accountPath: Type.String() }),
        errors: [401, 404],
      }),
    },
    async (request, reply) => {
      const from = source(request, request.params.wallet);
      const secret = await wrongPasswordIs401(() =>
        shared.hdWallets.exportSecret(hdScope(from), from.wallet, request.body.password),
      );
      return sendOk(reply, secret, 'Wallet exported');
    },
  );

  app.put(
    '/wallets/:wallet/password',
    {
      schema: routeSchema({
        summary: "Change a wallet's password",
        description: 'A wrong old_password answers 401 `Wrong password provided`.',
        tags,
        params: WalletParams,
        body: Type.Object({ old_password: WalletPassword, new_password: NewWalletPassword }),
        data: Type.Array(Type.Never()),
        errors: [401, 404],
      }),
    },
    async (request, reply) => {
      const from = source(request, request.params.wallet);
      const { old_password, new_password } = request.body;
      await wrongPasswordIs401(() =>
        shared.hdWallets.changePassword(hdScope(from), from.wallet, old_password, new_password),
      );
      return sendOk(reply, [], 'Password changed');
    },
  );
};
