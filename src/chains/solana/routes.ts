/**
 * Solana's own routes under /api/v2/solana: SOL and SPL sends, builds and broadcasts, import and export
 * in Solana's key forms, token balances and token descriptions. The routes every chain has are shared.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { sendOk } from '../../http/envelope.ts';
import { routeSchema } from '../../http/route-schema.ts';
import { NewWalletPassword, WalletPassword } from '../../http/wallet-fields.ts';
import type { AddressCustody } from '../../services/address-custody.ts';
import type { SendPipeline, SendScope } from '../../services/send-pipeline.ts';
import { addressSchema, type FamilyParts, type SharedServices } from '../family.ts';
import { solanaAddressForm } from './address-form.ts';
import { SolanaAddressOut, solanaCustodyAnswers } from './custody-answers.ts';
import { walletSecretKey } from './keys.ts';
import { SolanaSends } from './sends.ts';
import { SolanaTokenReads } from './token-reads.ts';

const prefix = '/api/v2/solana';
const SEND_ERRORS = [401, 404, 422, 502, 503];
const CREATED = 'Succesfully created transaction';
const SolanaAddress = addressSchema(solanaAddressForm);

const Amount = Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
  description:
    "Amount in the asset's units (SOL, or the token's own decimals), as a decimal string or number",
});
const Mint = Type.String({
  pattern: solanaAddressForm.pattern,
  description: "The token's mint address (Token or Token-2022)",
  examples: ['Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'],
});
const Signature = Type.String({
  description: 'The transaction signature (base58), its id',
  examples: ['5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'],
});
const SolanaPrivateKey = Type.String({
  minLength: 1,
  maxLength: 600,
  description:
    "Private key, never stored: the 64-byte secret key in base58 (as wallets export it) or as the CLI keypair file's JSON array, or the 32-byte seed in hex or base58",
});
const SigningFields = {
  password: Type.Optional(WalletPassword),
  privatekey: Type.Optional(SolanaPrivateKey),
};
const TxidData = Type.Object({
  txid: Signature,
  fee: Type.String({ description: 'The fee paid, in SOL', examples: ['0.000005'] }),
});

const SIGNING =
  'Signed with `password` (a stored address of yours) or `privatekey`. A wrong password answers 401 ' +
  "`Wrong password provided`; a private key that is not `from`'s answers 422. Before signing, the send is " +
  'checked against the balances: too little SOL for the amount and the fee answers 422 `Insufficient funds: …`; ' +
  'a send that would leave the sender with less than the rent-exempt minimum (and more than nothing), or ' +
  'a first transfer to an address below that minimum, answers 422 saying so. A recent prioritization fee ' +
  'is added while transactions on the same accounts pay one. Counts one `transactions` unit when sent.';

export function solanaParts(shared: SharedServices): FamilyParts {
  const sends = new SolanaSends(shared.registry);
  const reads = new SolanaTokenReads(shared.registry);
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    await app.register(solanaTransactionRoutes, { prefix, pipeline: shared.sends, sends });
    await app.register(solanaAddressRoutes, { prefix, custody: shared.custody });
    await app.register(solanaTokenRoutes, { prefix, reads });
  };
  return { routes, watcherTasks: [] };
}

const solanaTransactionRoutes: FastifyPluginAsyncTypebox<{
  pipeline: SendPipeline;
  sends: SolanaSends;
}> = async (app, { pipeline, sends }) => {
  const tags = ['solana'];
  const sender = (request: FastifyRequest): SendScope => ({
    userId: request.userId,
    chain: 'solana',
    network: request.network,
    attempt: request.sendAttempt,
  });

  app.post(
    '/transactions',
    {
      schema: routeSchema({
        summary: 'Send SOL',
        description: SIGNING,
        tags,
        body: Type.Object({ from: SolanaAddress, to: SolanaAddress, amount: Amount, ...SigningFields }),
        data: TxidData,
        status: 201,
        errors: SEND_ERRORS,
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await pipeline.send(sender(request), request.body, sends.sol(request.network, request.body)),
        CREATED,
        201,
      ),
  );

  app.post(
    '/transactions/spl',
    {
      schema: routeSchema({
        summary: "Send an SPL token, Token or Token-2022 (amount in the token's units)",
        description: `${SIGNING} The tokens leave the sender's associated token account; when the receiver has none for the mint, the same transaction opens it, paid by the sender (its rent is part of the SOL checked). \`to\` is the receiver's wallet address; a token account there answers 422. A \`contractaddress\` that is no mint answers 422.`,
        tags,
        body: Type.Object({
          from: SolanaAddress,
          to: SolanaAddress,
          contractaddress: Mint,
          amount: Amount,
          ...SigningFields,
        }),
        data: TxidData,
        status: 201,
        errors: SEND_ERRORS,
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await pipeline.send(sender(request), request.body, sends.spl(request.network, request.body)),
        CREATED,
        201,
      ),
  );

  app.post(
    '/transactions/build',
    {
      schema: routeSchema({
        summary: 'Build an unsigned SOL or SPL transfer to sign elsewhere',
        description:
          "With `contractaddress`, an SPL transfer (opening the receiver's token account when needed); without, a SOL transfer. The same checks as a send apply. `unsigned` is the legacy wire transaction in base64 with its signature slot empty: sign it with @solana/kit (`getTransactionDecoder`, `signTransaction`) or @solana/web3.js (`Transaction.from`, `sign`) before its blockhash expires (`lastValidBlockHeight`), then POST it to `transactions/broadcast`. Nothing is sent or stored.",
        tags,
        body: Type.Object({
          from: SolanaAddress,
          to: SolanaAddress,
          amount: Amount,
          contractaddress: Type.Optional(Mint),
        }),
        data: Type.Object({
          unsigned: Type.String({ description: 'Wire transaction, base64, signature slot empty' }),
          fee: Type.String({ description: 'SOL' }),
          blockhash: Type.String(),
          lastValidBlockHeight: Type.String(),
          priorityFee: Type.Union([
            Type.Object({ microLamportsPerUnit: Type.String(), computeUnitLimit: Type.String() }),
            Type.Null(),
          ]),
        }),
        errors: [404, 422, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, await sends.build(request.network, request.body), 'Transaction built'),
  );

  app.post(
    '/transactions/broadcast',
    {
      schema: routeSchema({
        summary: 'Broadcast a transaction signed elsewhere',
        description:
          "The signed wire transaction in base64. The node's refusal (a failed simulation, a bad signature, an expired blockhash) answers 422 in its words. Counts one `transactions` unit.",
        tags,
        body: Type.Object({
          rawtx: Type.String({
            minLength: 1,
            maxLength: 2000,
            description: 'The signed wire transaction in base64 (a Solana transaction is at most 1232 bytes)',
          }),
        }),
        data: Type.Object({ txid: Signature }),
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

const solanaAddressRoutes: FastifyPluginAsyncTypebox<{ custody: AddressCustody }> = async (
  app,
  { custody },
) => {
  const tags = ['solana addresses'];
  const target = (request: FastifyRequest) => ({
    userId: request.userId,
    chain: 'solana' as const,
    network: request.network,
  });

  app.post(
    '/addresses/import',
    {
      schema: routeSchema({
        summary: 'Import an address from its private key',
        description:
          'The key as wallets export it (64-byte secret key in base58), as a CLI keypair file (JSON array of 64 bytes) or as the 32-byte seed (hex or base58). With a password it is sealed with scrypt + AES-256-GCM; without, nothing is stored but the address.',
        tags,
        body: Type.Object({ privatekey: SolanaPrivateKey, password: Type.Optional(NewWalletPassword) }),
        data: Type.Array(SolanaAddressOut),
        status: 201,
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { privatekey, password } = request.body;
      const pair = await custody.import(target(request), privatekey, password);
      return sendOk(
        reply,
        [solanaCustodyAnswers.created.of(pair, password === undefined)],
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
          'The 64-byte secret key in base58, the form Phantom, Solflare and `Keypair.fromSecretKey(bs58.decode(…))` import. A wrong password answers 401 `Wrong password provided`.',
        tags,
        params: Type.Object({ address: SolanaAddress }),
        body: Type.Object({ password: WalletPassword }),
        data: Type.Object({ address: Type.String(), privateKey: Type.String() }),
        errors: [404],
      }),
    },
    async (request, reply) => {
      const { address } = request.params;
      const seed = await custody.exportKey(target(request), address, request.body.password);
      return sendOk(reply, { address, privateKey: walletSecretKey(seed) }, 'Address exported');
    },
  );
};

const solanaTokenRoutes: FastifyPluginAsyncTypebox<{ reads: SolanaTokenReads }> = async (app, { reads }) => {
  const tags = ['solana'];
  app.get(
    '/balances/:address/spl/:mint',
    {
      schema: routeSchema({
        summary: "An address's balance of an SPL token, over all its token accounts of that mint",
        description: 'A mint address that holds no mint answers 400.',
        tags,
        params: Type.Object({ address: SolanaAddress, mint: Mint }),
        data: Type.Object({
          address: Type.String(),
          mint: Type.String(),
          decimals: Type.Integer(),
          balance: Type.String({ description: "Decimal, in the token's units" }),
          balance_raw: Type.String({ description: 'In base units' }),
          tokenAccounts: Type.Integer(),
        }),
        errors: [400, 404, 422, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(
        reply,
        await reads.balance(request.network, request.params.address, request.params.mint),
        'Balance fetched',
      ),
  );

  app.get(
    '/spl/:mint',
    {
      schema: routeSchema({
        summary:
          "An SPL token's mint: program, decimals, supply, authorities, and name and symbol from its metadata",
        description:
          "Name, symbol and uri come from Token-2022's metadata extension or the Metaplex metadata account; null when the token has neither. A mint address that holds no mint answers 400.",
        tags,
        params: Type.Object({ mint: Mint }),
        data: Type.Object({
          mint: Type.String(),
          program: Type.String({ description: '`spl-token` or `spl-token-2022`' }),
          decimals: Type.Integer(),
          supply: Type.String(),
          supply_raw: Type.String(),
          mintAuthority: Type.Union([Type.String(), Type.Null()]),
          freezeAuthority: Type.Union([Type.String(), Type.Null()]),
          name: Type.Union([Type.String(), Type.Null()]),
          symbol: Type.Union([Type.String(), Type.Null()]),
          uri: Type.Union([Type.String(), Type.Null()]),
        }),
        errors: [400, 404, 422, 502, 503],
      }),
    },
    async (request, reply) =>
      sendOk(reply, await reads.mint(request.network, request.params.mint), 'Token fetched'),
  );
};
