/**
 * TON's routes under /api/v2/ton, as operations (`chains/operations.ts`): jetton balances and jetton
 * descriptions here; the sends, builds and broadcasts in send-operations.ts. The HTTP layer answers them
 * as every chain's.
 */
import { Type } from '@sinclair/typebox';
import { addressSchema, type FamilyParts } from '../family.ts';
import { type ChainOperation, familyOperation, NO_INPUT } from '../operations.ts';
import type { FamilyPorts } from '../ports.ts';
import { tonAddressForm } from './address-form.ts';
import { TonFeeSponsor } from './fee-sponsor.ts';
import { tonSendOperations } from './send-operations.ts';
import { TonTokenReads } from './token-reads.ts';
import { WalletTurns } from './wallet-turns.ts';

const TonAddress = addressSchema(tonAddressForm);
const JettonMaster = addressSchema(tonAddressForm, {
  description: "The jetton's master contract, in any TON address form",
  examples: ['EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs'],
});

export function tonParts(ports: FamilyPorts): FamilyParts {
  // One set of turns for the custodial sends and the sponsor's messages: both send from the same wallets.
  const turns = new WalletTurns(ports.store);
  const operations = [
    ...tonSendOperations(ports, turns),
    ...jettonOperations(new TonTokenReads(ports.registry)),
  ];
  return {
    operations: () => operations,
    watcherTasks: [],
    sponsor: new TonFeeSponsor(ports.registry, turns),
  };
}

function jettonOperations(reads: TonTokenReads): ChainOperation[] {
  return [
    familyOperation({
      method: 'GET',
      path: '/balances/:address/jetton/:master',
      summary: "An address's balance of a jetton (USDT or any jetton by its master)",
      description:
        "Read from the owner's jetton wallet, as the master names it (`get_wallet_address`); 0 while that wallet is not deployed. An address that holds no jetton master answers 400.",
      input: {
        params: Type.Object({ address: TonAddress, master: JettonMaster }),
        querystring: NO_INPUT,
        body: NO_INPUT,
      },
      data: Type.Object({
        address: Type.String(),
        jetton: Type.String({ description: "The jetton's master" }),
        jetton_wallet: Type.String({ description: "The owner's jetton wallet" }),
        decimals: Type.Union([Type.Integer(), Type.Null()], {
          description: 'null where the on-chain metadata leaves them to an off-chain document',
        }),
        balance: Type.Union([Type.String(), Type.Null()], {
          description: "Decimal, in the jetton's units; null where its decimals are not on chain",
        }),
        balance_raw: Type.String({ description: 'In base units' }),
      }),
      message: 'Balance fetched',
      errors: [400, 404, 422, 502, 503],
      run: ({ network }, { params }) => reads.balance(network, params.address, params.master),
    }),
    familyOperation({
      method: 'GET',
      path: '/jetton/:master',
      summary: "A jetton's description: name, symbol and decimals from its metadata, supply and admin",
      description:
        "Name, symbol, description and decimals come from the master's on-chain metadata (TEP-64); what only an off-chain document tells is answered null, with its `uri` (the gateway does not fetch it). Decimals are 9, the standard's default, where the on-chain metadata names none and has no `uri`. A jetton whose decimals are not on chain cannot be sent through the gateway (422: an amount of it cannot be read safely). An address that holds no jetton master answers 400.",
      input: { params: Type.Object({ master: JettonMaster }), querystring: NO_INPUT, body: NO_INPUT },
      data: Type.Object({
        jetton: Type.String(),
        name: Type.Union([Type.String(), Type.Null()]),
        symbol: Type.Union([Type.String(), Type.Null()]),
        description: Type.Union([Type.String(), Type.Null()]),
        decimals: Type.Union([Type.Integer(), Type.Null()], {
          description: 'null where the on-chain metadata leaves them to an off-chain document',
        }),
        total_supply: Type.Union([Type.String(), Type.Null()], {
          description: "Decimal, in the jetton's units; null where its decimals are not on chain",
        }),
        total_supply_raw: Type.String(),
        mintable: Type.Boolean(),
        admin: Type.Union([Type.String(), Type.Null()]),
        uri: Type.Union([Type.String(), Type.Null()], {
          description: 'Off-chain metadata, where the jetton has it',
        }),
      }),
      message: 'Token fetched',
      errors: [400, 404, 422, 502, 503],
      run: ({ network }, { params }) => reads.jetton(network, params.master),
    }),
  ];
}
