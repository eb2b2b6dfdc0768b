import { Type } from '@sinclair/typebox';
import { type ChainOperation, sendOperation } from '../../operations.ts';
import { Amount, Resource, SigningFields, TronAddress } from '../schemas.ts';
import type { TronSends } from '../sends.ts';
import { signedWith } from './signed-with.ts';

const ACTIONS = [
  {
    action: 'freeze',
    summary: 'Stake TRX for energy or bandwidth (Stake 2.0)',
    message: 'Balance frozen',
    receiver: false,
  },
  { action: 'unfreeze', summary: 'Unstake TRX (Stake 2.0)', message: 'Balance unfrozen', receiver: false },
  {
    action: 'delegate',
    summary: 'Delegate staked resources to another address',
    message: 'Delegated',
    receiver: true,
  },
  { action: 'undelegate', summary: 'Take back delegated resources', message: 'Undelegated', receiver: true },
] as const;

/**
 * Stake 2.0: freeze, unfreeze, delegate, undelegate; amounts in TRX, signed like sends, answered 200 with
 * each action's own message (as Chaingateway does).
 */
export function stakingOperations(sends: TronSends): ChainOperation[] {
  return ACTIONS.map(({ action, summary, message, receiver }) =>
    sendOperation({
      path: `/${action}`,
      summary,
      description:
        "Signed with `password` or `privatekey` like sends (a wrong password answers 422 `Validate signature error: ...`); the node's refusal (e.g. `delegated Resource does not exist`) answers 422. Counts one `transactions` unit.",
      tags: ['tron staking'],
      body: Type.Object({
        address: TronAddress,
        amount: Amount,
        resource: Resource,
        ...(receiver ? { receiver: TronAddress } : {}),
        ...SigningFields,
      }),
      data: Type.Object({ result: Type.Boolean(), txid: Type.String() }),
      answer: { status: 200, message },
      prepare: signedWith((network, stake) => sends.stake(network, action, stake)),
    }),
  );
}
