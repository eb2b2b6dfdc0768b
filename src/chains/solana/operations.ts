/**
 * Solana's routes under /api/v2/solana, as operations (`chains/operations.ts`): SOL and SPL sends, builds
 * and broadcasts, token balances and token descriptions. The HTTP layer answers them as every chain's.
 */
import { Type } from '@sinclair/typebox';
import { WalletPassword } from '../../custody/wallet-fields.ts';
import { addressSchema, type FamilyParts } from '../family.ts';
import {
  broadcastOperation,
  buildOperation,
  type ChainOperation,
  familyOperation,
  NO_INPUT,
  sendOperation,
} from '../operations.ts';
import type { FamilyPorts } from '../ports.ts';
import { solanaAddressForm } from './address-form.ts';
import { SolanaFeeSponsor } from './fee-sponsor.ts';
import { SolanaSends } from './sends.ts';
import { SolanaTokenReads } from './token-reads.ts';

const SolanaAddress = addressSchema(solanaAddressForm);

const Amount = Type.Union([Type.String({ maxLength: 100 }), Type.Number()], {
  description:
    "Amount in the asset's units (SOL, or the token's own decimals), as a decimal string or number without an exponent; at most 2^64 - 1 base units (a u64: 18446744073.709551615 SOL)",
});
const Mint = addressSchema(solanaAddressForm, {
  description: "The token's mint address (Token or Token-2022), 32 bytes in base58",
  examples: ['Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'],
});
const Signature = Type.String({
  description: 'The transaction signature (base58), its id',
  examples: ['5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'],
});
export const SolanaPrivateKey = Type.String({
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

export function solanaParts({ registry }: FamilyPorts): FamilyParts {
  const operations = [
    ...sendOperations(new SolanaSends(registry)),
    ...tokenOperations(new SolanaTokenReads(registry)),
  ];
  return { operations: () => operations, watcherTasks: [], sponsor: new SolanaFeeSponsor(registry) };
}

function sendOperations(sends: SolanaSends): ChainOperation[] {
  return [
    sendOperation({
      path: '/transactions',
      summary: 'Send SOL',
      description: SIGNING,
      body: Type.Object({ from: SolanaAddress, to: SolanaAddress, amount: Amount, ...SigningFields }),
      data: TxidData,
      prepare: ({ network }, { password, privatekey, ...send }) => ({
        proof: { password, privatekey },
        prepared: sends.sol(network, send),
      }),
    }),
    sendOperation({
      path: '/transactions/spl',
      summary: "Send an SPL token, Token or Token-2022 (amount in the token's units)",
      description: `${SIGNING} The tokens leave the sender's associated token account; when the receiver has none for the mint, the same transaction opens it, paid by the sender (its rent is part of the SOL checked). \`to\` is the receiver's wallet address; a token account there answers 422. A \`contractaddress\` that is no mint answers 422.`,
      body: Type.Object({
        from: SolanaAddress,
        to: SolanaAddress,
        contractaddress: Mint,
        amount: Amount,
        ...SigningFields,
      }),
      data: TxidData,
      prepare: ({ network }, { password, privatekey, ...send }) => ({
        proof: { password, privatekey },
        prepared: sends.spl(network, send),
      }),
    }),
    buildOperation({
      path: '/transactions/build',
      summary: 'Build an unsigned SOL or SPL transfer to sign elsewhere',
      description:
        "With `contractaddress`, an SPL transfer (opening the receiver's token account when needed); without, a SOL transfer. The same checks as a send apply. `unsigned` is the legacy wire transaction in base64 with its signature slot empty: sign it with @solana/kit (`getTransactionDecoder`, `signTransaction`) or @solana/web3.js (`Transaction.from`, `sign`) before its blockhash expires (`lastValidBlockHeight`), then POST it to `transactions/broadcast`. Nothing is sent or stored.",
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
      build: ({ network }, body) => sends.build(network, body),
    }),
    broadcastOperation({
      path: '/transactions/broadcast',
      summary: 'Broadcast a transaction signed elsewhere',
      description:
        "The signed wire transaction in base64. The node's refusal (a failed simulation, a bad signature, an expired blockhash) answers 422 in its words. Counts one `transactions` unit.",
      body: Type.Object({
        rawtx: Type.String({
          minLength: 1,
          maxLength: 2000,
          description: 'The signed wire transaction in base64 (a Solana transaction is at most 1232 bytes)',
        }),
      }),
      txid: Signature,
      signed: ({ network }, { rawtx }) => sends.broadcast(network, rawtx),
    }),
  ];
}

function tokenOperations(reads: SolanaTokenReads): ChainOperation[] {
  return [
    familyOperation({
      method: 'GET',
      path: '/balances/:address/spl/:mint',
      summary: "An address's balance of an SPL token, over all its token accounts of that mint",
      description: 'A mint address that holds no mint answers 400.',
      input: {
        params: Type.Object({ address: SolanaAddress, mint: Mint }),
        querystring: NO_INPUT,
        body: NO_INPUT,
      },
      data: Type.Object({
        address: Type.String(),
        mint: Type.String(),
        decimals: Type.Integer(),
        balance: Type.String({ description: "Decimal, in the token's units" }),
        balance_raw: Type.String({ description: 'In base units' }),
        tokenAccounts: Type.Integer(),
      }),
      message: 'Balance fetched',
      errors: [400, 404, 422, 502, 503],
      run: ({ network }, { params }) => reads.balance(network, params.address, params.mint),
    }),
    familyOperation({
      method: 'GET',
      path: '/spl/:mint',
      summary:
        "An SPL token's mint: program, decimals, supply, authorities, and name and symbol from its metadata",
      description:
        "Name, symbol and uri come from Token-2022's metadata extension or the Metaplex metadata account; null when the token has neither. A mint address that holds no mint answers 400.",
      input: { params: Type.Object({ mint: Mint }), querystring: NO_INPUT, body: NO_INPUT },
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
      message: 'Token fetched',
      errors: [400, 404, 422, 502, 503],
      run: ({ network }, { params }) => reads.mint(network, params.mint),
    }),
  ];
}
