// The system-contract messages this devnet understands, with their protobuf field numbers
// (java-tron protocol/src/main/protos/core/contract/*.proto).

export const RESOURCES = ['BANDWIDTH', 'ENERGY', 'TRON_POWER'] as const;
export type Resource = (typeof RESOURCES)[number];

/** address: 21-byte account; text: bytes shown as UTF-8 when visible=true (asset names). */
export type FieldKind = 'address' | 'bytes' | 'text' | 'int' | 'bool' | 'resource';

export interface FieldSpec {
  readonly name: string;
  readonly num: number;
  readonly kind: FieldKind;
}

export type FieldValue = string | bigint | boolean | Uint8Array;

/** Decoded contract body: address fields as 41-hex, bytes/text as Uint8Array, ints as bigint. */
export type ContractValue = Record<string, FieldValue | undefined>;

export interface ContractSpec {
  readonly type: string;
  readonly num: number;
  readonly fields: readonly FieldSpec[];
}

const f = (name: string, num: number, kind: FieldKind): FieldSpec => ({ name, num, kind });

export const CONTRACT_SPECS: readonly ContractSpec[] = [
  {
    type: 'AccountCreateContract',
    num: 0,
    fields: [f('owner_address', 1, 'address'), f('account_address', 2, 'address'), f('type', 3, 'int')],
  },
  {
    type: 'TransferContract',
    num: 1,
    fields: [f('owner_address', 1, 'address'), f('to_address', 2, 'address'), f('amount', 3, 'int')],
  },
  {
    type: 'TransferAssetContract',
    num: 2,
    fields: [
      f('asset_name', 1, 'text'),
      f('owner_address', 2, 'address'),
      f('to_address', 3, 'address'),
      f('amount', 4, 'int'),
    ],
  },
  {
    type: 'TriggerSmartContract',
    num: 31,
    fields: [
      f('owner_address', 1, 'address'),
      f('contract_address', 2, 'address'),
      f('call_value', 3, 'int'),
      f('data', 4, 'bytes'),
      f('call_token_value', 5, 'int'),
      f('token_id', 6, 'int'),
    ],
  },
  {
    type: 'FreezeBalanceV2Contract',
    num: 54,
    fields: [f('owner_address', 1, 'address'), f('frozen_balance', 2, 'int'), f('resource', 3, 'resource')],
  },
  {
    type: 'UnfreezeBalanceV2Contract',
    num: 55,
    fields: [f('owner_address', 1, 'address'), f('unfreeze_balance', 2, 'int'), f('resource', 3, 'resource')],
  },
  { type: 'WithdrawExpireUnfreezeContract', num: 56, fields: [f('owner_address', 1, 'address')] },
  {
    type: 'DelegateResourceContract',
    num: 57,
    fields: [
      f('owner_address', 1, 'address'),
      f('resource', 2, 'resource'),
      f('balance', 3, 'int'),
      f('receiver_address', 4, 'address'),
      f('lock', 5, 'bool'),
      f('lock_period', 6, 'int'),
    ],
  },
  {
    type: 'UnDelegateResourceContract',
    num: 58,
    fields: [
      f('owner_address', 1, 'address'),
      f('resource', 2, 'resource'),
      f('balance', 3, 'int'),
      f('receiver_address', 4, 'address'),
    ],
  },
  { type: 'CancelAllUnfreezeV2Contract', num: 59, fields: [f('owner_address', 1, 'address')] },
];

const byName = new Map(CONTRACT_SPECS.map((s) => [s.type, s]));
const byNum = new Map(CONTRACT_SPECS.map((s) => [s.num, s]));

export function specByType(type: string): ContractSpec | undefined {
  return byName.get(type);
}

export function specByNumber(num: number): ContractSpec | undefined {
  return byNum.get(num);
}

export function typeUrlOf(type: string): string {
  return `type.googleapis.com/protocol.${type}`;
}
