import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type TProperties, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { type FieldError, invalidField, validationFailed } from '../../errors.ts';
import { sendOk } from '../../http/envelope.ts';
import { routeSchema } from '../../http/route-schema.ts';
import { NewWalletPassword, PrivateKey, WalletPassword } from '../../http/wallet-fields.ts';
import type { SendPipeline } from '../../services/send-pipeline.ts';
import { addressSchema, type FamilyParts, type KeyCodec, type SharedServices } from '../family.ts';
import type { Network } from '../types.ts';
import { evmAddressForm } from './address-form.ts';
import { EVM_CHAIN_NAMES, EVM_CHAINS, type EvmChainName } from './chains.ts';
import { evmAddressFieldMessage } from './keys.ts';
import { EvmKeystores } from './keystores.ts';
import { NonceReconciler } from './nonce-reconciler.ts';
import { EvmSends } from './sends.ts';
import { EvmTokenReads } from './token-reads.ts';

const Address = addressSchema(evmAddressForm);
/** Where an EVM address sits in these routes' requests: the pattern checks its shape, not its checksum. */
const ADDRESS_FIELDS = { body: ['from', 'to', 'contractaddress'], params: ['address', 'contract'] } as const;
const Amount = Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
  description: "Amount in the asset's units (ETH, BNB, POL, or the token's decimals)",
});
const Num = Type.Union([Type.String({ maxLength: 40 }), Type.Number()], {
  description: 'Gwei, as a decimal string or number',
});
/** Gas units and nonces: whole numbers of at most 20 digits; empty means not given. */
const Whole = Type.Union(
  [Type.String({ pattern: '^[0-9]{0,20}$' }), Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })],
  { description: 'A whole number (at most 20 digits); empty means not given' },
);
/** Call data: 0x-prefixed hex, whole bytes; empty means none. */
const CallData = Type.String({
  pattern: '^(0x([0-9a-fA-F]{2})*)?$',
  maxLength: 100_000,
  description: 'Call data, 0x-prefixed hex (whole bytes)',
});
const SendFields = {
  password: Type.Optional(WalletPassword),
  privatekey: Type.Optional(PrivateKey),
  gas: Type.Optional(Whole),
  gasprice: Type.Optional(Num),
  maxFeePerGas: Type.Optional(Num),
  maxPriorityFeePerGas: Type.Optional(Num),
  nonce: Type.Optional(Whole),
  data: Type.Optional(CallData),
};
/** The body of a send: from, to, what it moves (`fields`), how it is signed and priced. */
function sendBody<Fields extends TProperties>(fields: Fields) {
  return Type.Object({ from: Address, to: Address, ...fields, ...SendFields });
}
const SEND_DOC =
  "Signed with `password` (your stored address) or `privatekey` (unsecure address). Optional `gas` (units), `gasprice`, `maxFeePerGas`, `maxPriorityFeePerGas` (gwei), `nonce`, `data`; fees default from the node's fee history (EIP-1559 where the chain has it, legacy on BSC). Nonces come from a database lock per address, so concurrent sends all land. Errors: 401 `Wrong password provided`; 422 `insufficient funds for gas * price + value ...`, a revert with its reason. Counts one `transactions` unit.";
const Txid = Type.Object({ txid: Type.String() });
const NodeJson = Type.Object({}, { additionalProperties: true });

const TokenId = Type.Union([Type.String({ pattern: '^[0-9]{1,78}$' }), Type.Integer({ minimum: 0 })]);
const BuildBody = Type.Object({
  from: Address,
  to: Address,
  amount: Type.Optional(Amount),
  contractaddress: Type.Optional(Address),
  tokenId: Type.Optional(TokenId),
  gas: Type.Optional(Whole),
  gasprice: Type.Optional(Num),
  maxFeePerGas: Type.Optional(Num),
  maxPriorityFeePerGas: Type.Optional(Num),
  nonce: Type.Optional(Whole),
  data: Type.Optional(CallData),
});
const BroadcastBody = Type.Object({
  rawtx: Type.String({ pattern: '^0x([0-9a-fA-F]{2})+$', maxLength: 300_000 }),
});

/** A wei quantity as ethers and viem both sign it from JSON (transactions.ts, ClientQuantity). */
const wei = (description: string) =>
  Type.Union([Type.String({ pattern: '^[1-9][0-9]{0,77}$' }), Type.Literal(0)], { description });
const Wei = wei(
  'Wei as a decimal string; zero is the number 0 (viem signs the string "0" as 0x00, which nodes refuse)',
);
const ClientTxFields = {
  chainId: Type.Integer(),
  nonce: Type.Integer({ minimum: 0 }),
  from: Type.String({ description: 'EIP-55; ethers checks it is the signing wallet' }),
  to: Type.String({ description: 'EIP-55: the receiver, or the token contract' }),
  value: Wei,
  data: Type.String({ pattern: '^0x([0-9a-fA-F]{2})*$' }),
  gas: wei('Gas limit, as viem reads it'),
  gasLimit: wei('The same gas limit, as ethers reads it'),
};
const ClientTransaction = Type.Union(
  [
    Type.Object(
      { type: Type.Literal(0), ...ClientTxFields, gasPrice: Wei },
      { title: 'Legacy transaction', additionalProperties: false },
    ),
    Type.Object(
      { ...ClientTxFields, maxFeePerGas: Wei, maxPriorityFeePerGas: Wei },
      { title: 'EIP-1559 transaction', additionalProperties: false },
    ),
  ],
  {
    description:
      'Signs as it is, straight from JSON, with ethers v6 `wallet.signTransaction(tx)` and viem `account.signTransaction(tx)`, into the transaction `unsigned` serializes. Legacy (BSC, or `gasprice` given) says `type: 0`; EIP-1559 has no `type`, both libraries infer it from the fee fields.',
  },
);

/** The schema of a send: from, to, what it moves (`fields`), how it is signed and priced. */
function sendSchema<Fields extends TProperties>(summary: string, tags: string[], fields: Fields) {
  return routeSchema({
    summary,
    description: SEND_DOC,
    tags,
    body: sendBody(fields),
    data: Txid,
    status: 201,
    errors: [400, 404, 502, 503],
  });
}

/** What the routes of every EVM chain run on. */
interface EvmRouteParts {
  pipeline: SendPipeline;
  sends: EvmSends;
  keystores: EvmKeystores;
  tokens: EvmTokenReads;
}

/**
 * The EVM family's own parts, built once per context (one nonce manager for every chain): its sends,
 * key imports and exports, token reads, and every Ethereum/BSC/Polygon/Arbitrum route of the spec over
 * them; the chains differ only by config.
 */
export function evmParts(shared: SharedServices, keys: KeyCodec): FamilyParts {
  const { registry, store, addressKeys } = shared;
  const parts: EvmRouteParts = {
    pipeline: shared.sends,
    sends: new EvmSends({ db: store.db, dialect: store.dialect, registry }),
    keystores: new EvmKeystores({ registry, addressKeys, custody: shared.custody, keys }),
    tokens: new EvmTokenReads({ registry }),
  };
  const routes: FastifyPluginAsyncTypebox = async (app) => {
    for (const chain of EVM_CHAIN_NAMES) {
      await app.register(evmChainRoutes, { prefix: `/api/v2/${chain}`, chain, parts });
    }
  };
  // Sent-but-unmined transactions are broadcast again by whichever instances watch the chains.
  const reconciler = new NonceReconciler(
    store.db,
    store.dialect,
    registry,
    shared.logger.child({ role: 'nonces' }),
    { troubleLog: shared.troubleLog },
  );
  return { routes, watcherTasks: [reconciler] };
}

/** One EVM chain's routes, under its own prefix. */
const evmChainRoutes: FastifyPluginAsyncTypebox<{ chain: EvmChainName; parts: EvmRouteParts }> = async (
  app,
  { chain, parts },
) => {
  const { pipeline, sends, keystores, tokens } = parts;
  const tags = [chain];
  const { fungible, nft } = EVM_CHAINS[chain].tokenSegments;
  // BSC names its tokens bep20/bep721 and accepts the erc names too.
  const fungibleSegments = [...new Set([fungible, 'erc20'])];
  const nftSegments = [...new Set([nft, 'erc721'])];
  app.addHook('preHandler', refuseMistypedAddresses);
  const net = (r: { network: Network }) => r.network;
  /** Who sends, where: the send pipeline's scope. */
  const sender = (r: FastifyRequest) => ({
    userId: r.userId,
    chain,
    network: net(r),
    attempt: r.sendAttempt,
  });
  const CREATED = 'Succesfully created transaction';

  app.post(
    '/transactions',
    { schema: sendSchema(`Send ${EVM_CHAINS[chain].nativeSymbol}`, tags, { amount: Amount }) },
    async (r, reply) =>
      sendOk(
        reply,
        await pipeline.send(sender(r), r.body, sends.native(chain, net(r), r.body)),
        CREATED,
        201,
      ),
  );
  for (const segment of fungibleSegments) {
    const summary = `Send a ${fungible.toUpperCase()} token (amount in the token's units)`;
    app.post(
      `/transactions/${segment}`,
      { schema: sendSchema(summary, tags, { contractaddress: Address, amount: Amount }) },
      async (r, reply) =>
        sendOk(
          reply,
          await pipeline.send(sender(r), r.body, sends.token(chain, net(r), r.body)),
          CREATED,
          201,
        ),
    );
  }
  for (const segment of nftSegments) {
    const summary = `Send a ${nft.toUpperCase()} token (safeTransferFrom)`;
    app.post(
      `/transactions/${segment}`,
      { schema: sendSchema(summary, tags, { contractaddress: Address, tokenId: TokenId }) },
      async (r, reply) =>
        sendOk(reply, await pipeline.send(sender(r), r.body, sends.nft(chain, net(r), r.body)), CREATED, 201),
    );
  }

  app.post(
    '/transactions/build',
    {
      schema: routeSchema({
        summary:
          'An unsigned transaction (native, token with contractaddress, NFT with contractaddress + tokenId) to sign yourself; nothing is sent',
        description:
          '`tx` signs as it is with ethers v6 or viem; `unsigned` is its serialization, for `Transaction.from` (ethers) or `parseTransaction` (viem), a hardware wallet or an HSM.',
        tags,
        body: BuildBody,
        data: Type.Object({
          tx: ClientTransaction,
          unsigned: Type.String({ description: 'The unsigned serialized transaction, 0x hex' }),
        }),
        errors: [400, 404, 502, 503],
      }),
    },
    async (r, reply) => sendOk(reply, await sends.build(chain, net(r), r.body), 'Transaction built'),
  );

  app.post(
    '/transactions/broadcast',
    {
      schema: routeSchema({
        summary: 'Broadcast a transaction you signed',
        description:
          'Counts one `transactions` unit when the node accepts it. The history records its signer and what it moves (coin, token, NFT), read from the signed transaction.',
        tags,
        body: BroadcastBody,
        data: Txid,
        status: 201,
        errors: [404, 502, 503],
      }),
    },
    async (r, reply) =>
      sendOk(
        reply,
        await pipeline.broadcast(sender(r), sends.signed(chain, net(r), r.body.rawtx)),
        'Succesfully created transaction',
        201,
      ),
  );

  const AddressParams = Type.Object({ address: Address });
  app.post(
    '/addresses/import',
    {
      schema: routeSchema({
        summary:
          'Import a keystore v3 (`content`, `filename`, `password`; scrypt or pbkdf2) or a `privatekey` (optional `password`)',
        tags,
        body: Type.Object({
          content: Type.Optional(
            Type.Union(
              [Type.String({ maxLength: 16_384 }), Type.Object({}, { additionalProperties: true })],
              {
                description:
                  'A Web3 keystore v3 (scrypt or pbkdf2), as JSON or its text; sent with its `password`',
              },
            ),
          ),
          filename: Type.Optional(Type.String({ maxLength: 200 })),
          password: Type.Optional(NewWalletPassword),
          privatekey: Type.Optional(PrivateKey),
        }),
        data: NodeJson,
        status: 201,
        errors: [404],
      }),
    },
    async (r, reply) => {
      const body = r.body;
      if (body.privatekey !== undefined) {
        return sendOk(
          reply,
          await keystores.importPrivateKey(r.userId, chain, net(r), body.privatekey, body.password),
          'Address imported',
          201,
        );
      }
      if (body.content === undefined || body.password === undefined) {
        throw invalidField('content', 'Send content + filename + password (keystore) or privatekey.');
      }
      return sendOk(
        reply,
        await keystores.importKeystore(
          r.userId,
          chain,
          net(r),
          body.content,
          body.filename ?? '',
          body.password,
        ),
        'Address imported',
        201,
      );
    },
  );
  app.post(
    '/addresses/export/:address',
    {
      schema: routeSchema({
        summary: 'Export as a Web3 Secret Storage v3 keystore (scrypt), encrypted with the password',
        tags,
        params: AddressParams,
        body: Type.Object({ password: WalletPassword }),
        data: Type.Object({ filename: Type.String(), content: NodeJson }),
        errors: [404],
      }),
    },
    async (r, reply) =>
      sendOk(
        reply,
        await keystores.exportKeystore(r.userId, chain, net(r), r.params.address, r.body.password),
        'Address exported',
      ),
  );
  app.post(
    '/addresses/export/:address/privatekey',
    {
      schema: routeSchema({
        summary: 'Export the private key',
        tags,
        params: AddressParams,
        body: Type.Object({ password: WalletPassword }),
        data: Type.Object({ private_key: Type.String() }),
        errors: [404],
      }),
    },
    async (r, reply) =>
      sendOk(
        reply,
        await keystores.exportPrivateKey(r.userId, chain, net(r), r.params.address, r.body.password),
        'Private key exported',
      ),
  );

  for (const segment of fungibleSegments) {
    app.get(
      `/balances/:address/${segment}/:contract`,
      {
        schema: routeSchema({
          summary: "Token balance, a decimal string in the token's units",
          tags,
          params: Type.Object({ address: Address, contract: Address }),
          data: Type.String(),
          errors: [400, 404, 502, 503],
        }),
      },
      async (r, reply) =>
        sendOk(
          reply,
          await tokens.tokenBalance(chain, net(r), r.params.address, r.params.contract),
          'Balance fetched',
        ),
    );
    app.get(
      `/${segment}/:contract`,
      {
        schema: routeSchema({
          summary: 'Token contract information',
          tags,
          params: Type.Object({ contract: Address }),
          data: Type.Object({
            address: Type.String(),
            symbol: Type.String(),
            name: Type.String(),
            decimals: Type.Integer(),
            totalSupply: Type.String(),
          }),
          errors: [400, 404, 502, 503],
        }),
      },
      async (r, reply) =>
        sendOk(reply, await tokens.tokenInfo(chain, net(r), r.params.contract), 'Contract fetched'),
    );
  }
  app.get(
    '/gasprice',
    {
      schema: routeSchema({
        summary: 'Gas price in gwei',
        tags,
        data: Type.Object({ gasPrice: Type.String() }),
        errors: [404, 502, 503],
      }),
    },
    async (r, reply) => sendOk(reply, await tokens.gasPrice(chain, net(r)), 'Gas price fetched'),
  );
  const NftParams = Type.Object({ contract: Address, tokenId: Type.String({ pattern: '^[0-9]{1,78}$' }) });
  app.get(
    '/nfts/:contract/owner/:tokenId',
    {
      schema: routeSchema({
        summary: 'Owner of an NFT',
        tags,
        params: NftParams,
        data: Type.Object({ owner: Type.String() }),
        errors: [400, 404, 502, 503],
      }),
    },
    async (r, reply) =>
      sendOk(
        reply,
        await tokens.nftOwner(chain, net(r), r.params.contract, r.params.tokenId),
        'Owner fetched',
      ),
  );
  app.get(
    '/nfts/:contract/uri/:tokenId',
    {
      schema: routeSchema({
        summary: 'Metadata URI of an NFT',
        tags,
        params: NftParams,
        data: Type.Object({ uri: Type.String() }),
        errors: [400, 404, 502, 503],
      }),
    },
    async (r, reply) =>
      sendOk(reply, await tokens.nftUri(chain, net(r), r.params.contract, r.params.tokenId), 'URI fetched'),
  );
};

/**
 * Runs after schema validation: a mixed-case address whose EIP-55 checksum is wrong is a typo, and a
 * JSON-schema pattern cannot compute a checksum. Refused before anything is read, signed or stored.
 */
async function refuseMistypedAddresses(request: FastifyRequest): Promise<void> {
  const errors: FieldError[] = [];
  for (const [part, fields] of [
    [request.body, ADDRESS_FIELDS.body],
    [request.params, ADDRESS_FIELDS.params],
  ] as const) {
    const values = objectOf(part);
    for (const field of fields) {
      if (values[field] === undefined) continue;
      const message = evmAddressFieldMessage(field, values[field]);
      if (message !== null) errors.push({ field, message });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value)) : {};
}
