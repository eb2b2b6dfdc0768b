/**
 * Bitcoin's own routes under /api/v2/bitcoin: payments from an address or an HD wallet with fee speeds,
 * PSBT builds and raw broadcasts, import and export in WIF. The wallets are in wallet-routes.ts; the
 * routes every chain has are shared.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { sendOk } from '../../http/envelope.ts';
import { routeSchema } from '../../http/route-schema.ts';
import { NewWalletPassword, WalletPassword } from '../../http/wallet-fields.ts';
import type { AddressCustody } from '../../services/address-custody.ts';
import type { SendPipeline, SendScope } from '../../services/send-pipeline.ts';
import { addressSchema, type FamilyParts, type SharedServices } from '../family.ts';
import { bitcoinAddressForm } from './address-form.ts';
import { BitcoinAddressOut, bitcoinCustodyAnswers, wifOfAddressKey } from './custody-answers.ts';
import { MAX_FEE_RATE_SAT_VB, SPEED_TARGETS, SPEEDS } from './fee-speed.ts';
import { BITCOIN_PRIVATE_KEY_FORM } from './keys.ts';
import { BitcoinSends } from './sends.ts';
import { bitcoinWalletRoutes, WalletName, type WalletSource, walletAddresses } from './wallet-routes.ts';

const prefix = '/api/v2/bitcoin';
const SEND_ERRORS = [401, 404, 422, 502, 503];
const CREATED = 'Succesfully created transaction';
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
const BitcoinPrivateKey = Type.String({
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
  'Coins are chosen to waste the least (branch and bound for an input set that needs no change, else the fewest coins with change back to the sender), among confirmed coins only. The fee is the fee rate times the exact virtual size; outputs below the dust limit are refused; replace-by-fee (BIP-125) is signalled. Too little answers 422 `Insufficient funds: … BTC missing …`, naming what is still unconfirmed. An address of another network answers 422.';

export function bitcoinParts(shared: SharedServices): FamilyParts {
  const sends = new BitcoinSends(shared.registry);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(bitcoinTransactionRoutes, { prefix, pipeline: shared.sends, sends, wallets: shared });
    await app.register(bitcoinAddressRoutes, { prefix, custody: shared.custody });
    await app.register(bitcoinWalletRoutes, { prefix, shared });
  };
  return { routes, watcherTasks: [] };
}

const bitcoinTransactionRoutes: FastifyPluginAsyncTypebox<{
  pipeline: SendPipeline;
  sends: BitcoinSends;
  wallets: SharedServices;
}> = async (app, { pipeline, sends, wallets }) => {
  const tags = ['bitcoin'];
  const sender = (request: FastifyRequest): SendScope => ({
    userId: request.userId,
    chain: 'bitcoin',
    network: request.network,
    attempt: request.sendAttempt,
  });
  const walletSource = (request: FastifyRequest, wallet: string): WalletSource => ({
    shared: wallets,
    scope: sender(request),
    wallet,
  });

  app.post(
    '/transactions',
    {
      schema: routeSchema({
        summary: 'Send BTC from an address of yours or from one of your wallets',
        description: `From \`from\` (signed with its \`password\` or with \`privatekey\`) or from \`walletname\` (signed with the wallet's \`password\`, spending the coins of all its addresses). ${COINS} A wrong password answers 401 \`Wrong password provided\`. Counts one \`transactions\` unit when sent.`,
        tags,
        body: Type.Object({
          from: Type.Optional(BitcoinAddress),
          walletname: Type.Optional(WalletName),
          ...PaymentFields,
          password: Type.Optional(WalletPassword),
          privatekey: Type.Optional(BitcoinPrivateKey),
        }),
        data: Sent,
        status: 201,
        errors: SEND_ERRORS,
      }),
    },
    async (request, reply) => {
      const { from, walletname, password, privatekey, ...payment } = request.body;
      const scope = sender(request);
      if (walletname !== undefined) {
        if (from !== undefined) throw eitherFromOrWallet();
        if (password === undefined) {
          throw new ApiError(422, 'The given data was invalid.', [
            { field: 'password', message: 'A wallet send needs the wallet password.' },
          ]);
        }
        const source = walletSource(request, walletname);
        const prepared = sends.fromWallet(scope.network, walletname, () => walletAddresses(source), payment);
        return sendOk(reply, await pipeline.sendFromWallet(scope, password, prepared), CREATED, 201);
      }
      if (from === undefined) throw eitherFromOrWallet();
      const proof = { password, privatekey };
      const prepared = sends.fromAddress(scope.network, { ...payment, from });
      return sendOk(reply, await pipeline.send(scope, proof, prepared), CREATED, 201);
    },
  );

  app.post(
    '/transactions/build',
    {
      schema: routeSchema({
        summary: 'Build an unsigned payment as a PSBT, to sign elsewhere',
        description: `From \`from\` or from the coins of \`walletname\`. ${COINS} \`psbt\` is a BIP-174 PSBT in base64 with each input's \`witness_utxo\`: bitcoinjs-lib (\`Psbt.fromBase64\`, \`signAllInputs\`, \`finalizeAllInputs\`), @scure/btc-signer or Bitcoin Core (\`walletprocesspsbt\`) sign it; POST the extracted transaction's hex to \`transactions/broadcast\`. Nothing is sent or stored.`,
        tags,
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
        errors: [404, 422, 502, 503],
      }),
    },
    async (request, reply) => {
      const { from, walletname, ...payment } = request.body;
      const scope = sender(request);
      let built: Awaited<ReturnType<BitcoinSends['build']>>;
      if (walletname !== undefined && from === undefined) {
        const source = walletSource(request, walletname);
        built = await sends.build(
          scope.network,
          async () => {
            const addresses = await walletAddresses(source);
            const change = addresses[0];
            if (change === undefined)
              throw new ApiError(422, 'The wallet has no addresses yet, so no coins to send');
            return { addresses, change };
          },
          payment,
        );
      } else if (from !== undefined && walletname === undefined) {
        built = await sends.build(scope.network, { addresses: [from], change: from }, payment);
      } else {
        throw eitherFromOrWallet();
      }
      return sendOk(reply, built, 'Transaction built');
    },
  );

  app.post(
    '/transactions/broadcast',
    {
      schema: routeSchema({
        summary: 'Broadcast a transaction signed elsewhere',
        description:
          "The signed transaction in hex. The node's refusal (missing or spent inputs, a bad signature, a fee below the relay minimum, dust) answers 422 in its words. Counts one `transactions` unit.",
        tags,
        body: Type.Object({
          rawtx: Type.String({
            minLength: 2,
            maxLength: 800_000,
            pattern: '^[0-9a-fA-F]+$',
            description: 'The signed transaction, hex (at most 400,000 bytes, the standard size limit)',
          }),
        }),
        data: Type.Object({ txid: Type.String() }),
        status: 201,
        errors: SEND_ERRORS,
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await pipeline.broadcast(sender(request), sends.broadcast(request.network, request.body.rawtx)),
        CREATED,
        201,
      ),
  );
};

function eitherFromOrWallet(): ApiError {
  return new ApiError(422, 'The given data was invalid.', [
    { field: 'from', message: 'Give either from (an address of yours) or walletname (a wallet of yours).' },
  ]);
}

const bitcoinAddressRoutes: FastifyPluginAsyncTypebox<{ custody: AddressCustody }> = async (
  app,
  { custody },
) => {
  const tags = ['bitcoin addresses'];
  const target = (request: FastifyRequest) => ({
    userId: request.userId,
    chain: 'bitcoin' as const,
    network: request.network,
  });

  app.post(
    '/addresses/import',
    {
      schema: routeSchema({
        summary: 'Import an address from its private key',
        description: `The key as ${BITCOIN_PRIVATE_KEY_FORM}; a WIF of another network is refused. The address is its native segwit (P2WPKH) address. With a password it is sealed with scrypt + AES-256-GCM; without, nothing is stored but the address.`,
        tags,
        body: Type.Object({ privatekey: BitcoinPrivateKey, password: Type.Optional(NewWalletPassword) }),
        data: Type.Array(BitcoinAddressOut),
        status: 201,
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { privatekey, password } = request.body;
      const pair = await custody.import(target(request), privatekey, password);
      return sendOk(
        reply,
        [bitcoinCustodyAnswers.created.of(pair, password === undefined)],
        'Address imported',
        201,
      );
    },
  );

  app.post(
    '/addresses/export/:address',
    {
      schema: routeSchema({
        summary: 'Export the private key of a stored address',
        description:
          'The key as WIF (compressed), the form Electrum, Sparrow and `bitcoin-cli importprivkey` take. A wrong password answers 401 `Wrong password provided`.',
        tags,
        params: Type.Object({ address: BitcoinAddress }),
        body: Type.Object({ password: WalletPassword }),
        data: Type.Object({ address: Type.String(), privateKey: Type.String({ description: 'WIF' }) }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { address } = request.params;
      const key = await custody.exportKey(target(request), address, request.body.password);
      return sendOk(reply, { address, privateKey: wifOfAddressKey(key, address) }, 'Address exported');
    },
  );
};
