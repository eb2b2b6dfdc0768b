import { Type } from '@sinclair/typebox';
import { PrivateKey, walletPassword } from '../../custody/wallet-fields.ts';
import { addressSchema } from '../family.ts';
import { tronAddressForm } from './address-form.ts';

/** Base58 Tron address, where the spec takes only that form. */
export const TronAddress = addressSchema(tronAddressForm, {
  pattern: '^T[1-9A-HJ-NP-Za-km-z]{33}$',
  description: 'Tron address (base58, T...) with a valid base58check checksum',
});

/** Base58 or 41-prefixed hex, where the spec accepts both. */
export const TronAnyAddress = addressSchema(tronAddressForm);

export const Amount = Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
  description:
    "Amount in the asset's units (TRX, or the token's own decimals), as a decimal string or number",
});

/** TRC10 asset id, as the send and build bodies name it (`tokenId`). */
export const Trc10TokenId = Type.String({
  pattern: '^[0-9]{1,19}$',
  description: 'TRC10 asset id, e.g. "1004920"',
});

/** TRC721 token id (uint256), as decimal text or a JSON integer. */
export const Trc721TokenId = Type.Union([
  Type.String({ pattern: '^[0-9]{1,78}$' }),
  Type.Integer({ minimum: 0 }),
]);

/** Either `password` (stored key) or `privatekey`; a wrong password answers as Chaingateway's Tron sends do. */
export const SigningFields = {
  password: Type.Optional(walletPassword('422 `Validate signature error: ...`')),
  privatekey: Type.Optional(PrivateKey),
};

export const FeeLimit = Type.Optional(
  Type.Union([Type.String({ maxLength: 40 }), Type.Number()], {
    description: 'Most TRX this contract call may burn (default from TRON_FEE_LIMIT_TRX)',
  }),
);

export const Txid = Type.String({
  pattern: '^(0x)?[0-9a-fA-F]{64}$',
  description: 'Transaction id (64 hex)',
});

export const TxidData = Type.Object({
  txid: Type.String(),
  estimate: Type.Optional(
    Type.Object(
      {
        energy: Type.String(),
        bandwidth: Type.String(),
        energy_available: Type.String(),
        bandwidth_available: Type.String(),
        trx_burn: Type.String({ description: 'TRX burned for what staking does not cover' }),
        fee_limit: Type.String(),
        balance: Type.String(),
      },
      { description: 'Resource pre-flight of a TRC20/TRC721 transfer' },
    ),
  ),
});

export const Resource = Type.Union([Type.Literal('ENERGY'), Type.Literal('BANDWIDTH')]);

/** Raw node JSON passed through as the spec does (blocks, transactions, receipts). */
export const NodeJson = Type.Object({}, { additionalProperties: true });

export const UnsignedTransaction = Type.Object(
  {
    txID: Type.String(),
    raw_data: Type.Object({}, { additionalProperties: true }),
    raw_data_hex: Type.String(),
    visible: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export const SignedTransaction = Type.Object(
  {
    txID: Type.String({ pattern: '^[0-9a-fA-F]{64}$' }),
    raw_data: Type.Object({}, { additionalProperties: true }),
    raw_data_hex: Type.String({ pattern: '^[0-9a-fA-F]*$', maxLength: 1_000_000 }),
    signature: Type.Array(Type.String({ pattern: '^(0x)?[0-9a-fA-F]{130}$' }), { minItems: 1, maxItems: 32 }),
    visible: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
