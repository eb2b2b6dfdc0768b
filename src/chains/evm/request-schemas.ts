/** The schemas of the EVM operations' inputs and answers, shared by every EVM chain. */
import { type TProperties, Type } from '@sinclair/typebox';
import { PrivateKey, WalletPassword } from '../../custody/wallet-fields.ts';
import { addressSchema } from '../family.ts';
import { evmAddressForm } from './address-form.ts';

export const Address = addressSchema(evmAddressForm);
export const Amount = Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
  description:
    "Amount in the asset's units (ETH, BNB, POL, or the token's decimals), plain decimal digits without an exponent; at most 2^256 - 1 base units (a uint256)",
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
/** How a transaction is priced and what it carries beyond its value: a send's and a build's. */
const PricingFields = {
  gas: Type.Optional(Whole),
  gasprice: Type.Optional(Num),
  maxFeePerGas: Type.Optional(Num),
  maxPriorityFeePerGas: Type.Optional(Num),
  nonce: Type.Optional(Whole),
  data: Type.Optional(CallData),
};

/** The body of a send: from, to, what it moves (`fields`), how it is signed and priced. */
export function sendBody<Fields extends TProperties>(fields: Fields) {
  return Type.Object({
    from: Address,
    to: Address,
    ...fields,
    password: Type.Optional(WalletPassword),
    privatekey: Type.Optional(PrivateKey),
    ...PricingFields,
  });
}

export const Txid = Type.Object({ txid: Type.String() });
/** A JSON object passed through as it is (a keystore, an import's answer). */
export const NodeJson = Type.Object({}, { additionalProperties: true });

export const TokenId = Type.Union([Type.String({ pattern: '^[0-9]{1,78}$' }), Type.Integer({ minimum: 0 })], {
  description: 'NFT token id, a uint256: a whole number below 2^256',
});
export const BuildBody = Type.Object({
  from: Address,
  to: Address,
  amount: Type.Optional(Amount),
  contractaddress: Type.Optional(Address),
  tokenId: Type.Optional(TokenId),
  ...PricingFields,
});
export const BroadcastBody = Type.Object({
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
export const ClientTransaction = Type.Union(
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
