// System contracts (java-tron actuator/*Actuator.java): validate() with java-tron's exact
// messages, then execute() on the world state. TriggerSmartContract lives in tvm.ts.
import type { ContractValue, Resource } from './contract-types.ts';
import type { ChainParams } from './params.ts';
import { increase, minBig } from './resources.ts';
import {
  type Account,
  type Delegation,
  delegationKey,
  newAccount,
  type StakeResource,
  totalWeight,
  type WorldState,
} from './state.ts';

export class ContractValidateError extends Error {}
export class ContractExeError extends Error {}

export interface ActuatorContext {
  world: WorldState;
  params: ChainParams;
  /** Latest block timestamp (ms): java-tron's getLatestBlockHeaderTimestamp. */
  headTime: bigint;
  /** Head slot: (headTime - genesisTime) / 3000. */
  now: bigint;
}

export interface ActuatorResult {
  /** Transaction.Result.fee set by the actuator (account-creation fee). */
  fee: bigint;
  withdrawExpireAmount?: bigint;
  cancelUnfreezeV2Amount?: Record<string, bigint>;
}

export interface Actuator {
  validate(ctx: ActuatorContext, v: ContractValue): void;
  execute(ctx: ActuatorContext, v: ContractValue): ActuatorResult;
}

const TRX = 1_000_000n;
const UNFREEZE_MAX_TIMES = 32;
const BLOCK_INTERVAL_MS = 3000n;
const DELEGATE_PERIOD_MS = 3n * 86_400_000n;

const addr = (v: ContractValue, name: string) => (v[name] as string | undefined) ?? '';
const int = (v: ContractValue, name: string) => (v[name] as bigint | undefined) ?? 0n;
const res = (v: ContractValue) => (v['resource'] as Resource | undefined) ?? 'BANDWIDTH';
/** DecodeUtil.addressValid: 21 bytes with the 0x41 prefix. */
const validAddress = (hex: string) => /^41[0-9a-f]{40}$/.test(hex);
const readable = (hex: string) => hex;

function mustAccount(ctx: ActuatorContext, hex: string): Account {
  const a = ctx.world.accounts.get(hex);
  if (!a) throw new ContractExeError(`Account[${readable(hex)}] not exists`);
  return a;
}

function createAccount(ctx: ActuatorContext, hex: string): Account {
  const a = newAccount(hex, ctx.headTime);
  ctx.world.accounts.set(hex, a);
  return a;
}

export const transferActuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    const to = addr(v, 'to_address');
    const amount = int(v, 'amount');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid ownerAddress!');
    if (!validAddress(to)) throw new ContractValidateError('Invalid toAddress!');
    if (to === owner) throw new ContractValidateError('Cannot transfer TRX to yourself.');
    const ownerAccount = ctx.world.accounts.get(owner);
    if (!ownerAccount) throw new ContractValidateError('Validate TransferContract error, no OwnerAccount.');
    if (amount <= 0n) throw new ContractValidateError('Amount must be greater than 0.');
    const fee = ctx.world.accounts.has(to) ? 0n : ctx.params.createNewAccountFeeInSystemContract;
    if (ownerAccount.balance < amount + fee) {
      throw new ContractValidateError('Validate TransferContract error, balance is not sufficient.');
    }
  },
  execute(ctx, v) {
    const owner = mustAccount(ctx, addr(v, 'owner_address'));
    const toHex = addr(v, 'to_address');
    const amount = int(v, 'amount');
    let fee = 0n;
    let to = ctx.world.accounts.get(toHex);
    if (!to) {
      to = createAccount(ctx, toHex);
      fee += ctx.params.createNewAccountFeeInSystemContract;
    }
    if (owner.balance < amount + fee) throw new ContractExeError('balance is not sufficient');
    owner.balance -= amount + fee;
    to.balance += amount;
    return { fee };
  },
};

/** CreateAccountActuator: the owner pays getCreateNewAccountFeeInSystemContract for a new, empty account. */
export const createAccountActuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid ownerAddress');
    const ownerAccount = ctx.world.accounts.get(owner);
    if (!ownerAccount) throw new ContractValidateError(`Account[${readable(owner)}] not exists`);
    if (ownerAccount.balance < ctx.params.createNewAccountFeeInSystemContract) {
      throw new ContractValidateError('Validate CreateAccountActuator error, insufficient fee.');
    }
    const account = addr(v, 'account_address');
    if (!validAddress(account)) throw new ContractValidateError('Invalid account address');
    if (ctx.world.accounts.has(account)) throw new ContractValidateError('Account has existed');
  },
  execute(ctx, v) {
    const owner = mustAccount(ctx, addr(v, 'owner_address'));
    const fee = ctx.params.createNewAccountFeeInSystemContract;
    createAccount(ctx, addr(v, 'account_address'));
    if (owner.balance < fee) throw new ContractExeError('balance is not sufficient');
    owner.balance -= fee;
    return { fee };
  },
};

export const transferAssetActuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    const to = addr(v, 'to_address');
    const amount = int(v, 'amount');
    const assetId = new TextDecoder().decode((v['asset_name'] as Uint8Array | undefined) ?? new Uint8Array());
    if (!validAddress(owner)) throw new ContractValidateError('Invalid ownerAddress');
    if (!validAddress(to)) throw new ContractValidateError('Invalid toAddress');
    if (amount <= 0n) throw new ContractValidateError('Amount must be greater than 0.');
    if (owner === to) throw new ContractValidateError('Cannot transfer asset to yourself.');
    const ownerAccount = ctx.world.accounts.get(owner);
    if (!ownerAccount) throw new ContractValidateError('No owner account!');
    if (!ctx.world.assets.has(assetId)) throw new ContractValidateError('No asset!');
    const balance = ownerAccount.assets.get(assetId) ?? 0n;
    if (balance <= 0n) throw new ContractValidateError('assetBalance must be greater than 0.');
    if (amount > balance) throw new ContractValidateError('assetBalance is not sufficient.');
    if (
      !ctx.world.accounts.has(to) &&
      ownerAccount.balance < ctx.params.createNewAccountFeeInSystemContract
    ) {
      throw new ContractValidateError('Validate TransferAssetActuator error, insufficient fee.');
    }
  },
  execute(ctx, v) {
    const owner = mustAccount(ctx, addr(v, 'owner_address'));
    const toHex = addr(v, 'to_address');
    const amount = int(v, 'amount');
    const assetId = new TextDecoder().decode(v['asset_name'] as Uint8Array);
    let fee = 0n;
    let to = ctx.world.accounts.get(toHex);
    if (!to) {
      to = createAccount(ctx, toHex);
      fee += ctx.params.createNewAccountFeeInSystemContract;
    }
    const balance = owner.assets.get(assetId) ?? 0n;
    if (balance < amount) throw new ContractExeError('reduceAssetAmount failed !');
    owner.assets.set(assetId, balance - amount);
    to.assets.set(assetId, (to.assets.get(assetId) ?? 0n) + amount);
    if (owner.balance < fee) throw new ContractExeError('balance is not sufficient');
    owner.balance -= fee;
    return { fee };
  },
};

function stakeResource(r: Resource): StakeResource | null {
  return r === 'TRON_POWER' ? null : r;
}

export const freezeBalanceV2Actuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid address');
    const account = ctx.world.accounts.get(owner);
    if (!account) throw new ContractValidateError(`Account[${readable(owner)}] not exists`);
    const frozen = int(v, 'frozen_balance');
    if (frozen <= 0n) throw new ContractValidateError('frozenBalance must be positive');
    if (frozen < TRX) throw new ContractValidateError('frozenBalance must be greater than or equal to 1 TRX');
    if (frozen > account.balance) {
      throw new ContractValidateError('frozenBalance must be less than or equal to accountBalance');
    }
  },
  execute(ctx, v) {
    const account = mustAccount(ctx, addr(v, 'owner_address'));
    const frozen = int(v, 'frozen_balance');
    account.balance -= frozen;
    account.frozenV2[res(v)] += frozen;
    return { fee: 0n };
  },
};

/** Expired unfreezes go back to the balance (unfreezeExpire / withdrawExpireUnfreeze). */
function withdrawExpired(account: Account, headTime: bigint): bigint {
  let amount = 0n;
  account.unfrozenV2 = account.unfrozenV2.filter((u) => {
    if (u.expireTime <= headTime) {
      amount += u.amount;
      return false;
    }
    return true;
  });
  account.balance += amount;
  return amount;
}

export const unfreezeBalanceV2Actuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid address');
    const account = ctx.world.accounts.get(owner);
    if (!account) throw new ContractValidateError(`Account[${readable(owner)}] does not exist`);
    const r = res(v);
    const label = r === 'BANDWIDTH' ? 'BANDWIDTH' : r === 'ENERGY' ? 'Energy' : 'TronPower';
    if (account.frozenV2[r] <= 0n) throw new ContractValidateError(`no frozenBalance(${label})`);
    const amount = int(v, 'unfreeze_balance');
    if (amount <= 0n || amount > account.frozenV2[r]) {
      throw new ContractValidateError(`Invalid unfreeze_balance, [${amount}] is error`);
    }
    const unfreezing = account.unfrozenV2.filter((u) => u.expireTime > ctx.headTime).length;
    if (unfreezing >= UNFREEZE_MAX_TIMES) {
      throw new ContractValidateError('Invalid unfreeze operation, unfreezing times is over limit');
    }
  },
  execute(ctx, v) {
    const account = mustAccount(ctx, addr(v, 'owner_address'));
    const withdrawn = withdrawExpired(account, ctx.headTime);
    const amount = int(v, 'unfreeze_balance');
    const r = res(v);
    account.frozenV2[r] -= amount;
    account.unfrozenV2.push({
      type: r,
      amount,
      expireTime: ctx.headTime + ctx.params.unfreezeDelayDays * 86_400_000n,
    });
    return withdrawn > 0n ? { fee: 0n, withdrawExpireAmount: withdrawn } : { fee: 0n };
  },
};

export const withdrawExpireUnfreezeActuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid address');
    const account = ctx.world.accounts.get(owner);
    if (!account) throw new ContractValidateError(`Account[${readable(owner)}] not exists`);
    const expired = account.unfrozenV2.filter((u) => u.expireTime <= ctx.headTime);
    if (expired.length === 0) throw new ContractValidateError('no unFreeze balance to withdraw ');
  },
  execute(ctx, v) {
    const account = mustAccount(ctx, addr(v, 'owner_address'));
    return { fee: 0n, withdrawExpireAmount: withdrawExpired(account, ctx.headTime) };
  },
};

export const cancelAllUnfreezeV2Actuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid address');
    const account = ctx.world.accounts.get(owner);
    if (!account) throw new ContractValidateError(`Account[${readable(owner)}] does not exist`);
    if (account.unfrozenV2.length === 0) throw new ContractValidateError('No unfreezeV2 list to cancel');
  },
  execute(ctx, v) {
    const account = mustAccount(ctx, addr(v, 'owner_address'));
    const cancelled: Record<string, bigint> = { BANDWIDTH: 0n, ENERGY: 0n, TRON_POWER: 0n };
    let withdrawn = 0n;
    for (const u of account.unfrozenV2) {
      if (u.expireTime <= ctx.headTime) withdrawn += u.amount;
      else {
        account.frozenV2[u.type] += u.amount;
        cancelled[u.type] = (cancelled[u.type] ?? 0n) + u.amount;
      }
    }
    account.unfrozenV2 = [];
    account.balance += withdrawn;
    return { fee: 0n, withdrawExpireAmount: withdrawn, cancelUnfreezeV2Amount: cancelled };
  },
};

/** TRX-equivalent of bandwidth/energy already used, as DelegateResourceActuator computes it. */
function usedStake(ctx: ActuatorContext, a: Account, r: StakeResource): bigint {
  const usage =
    r === 'BANDWIDTH'
      ? increase(a.netUsage, 0n, a.latestConsumeTime, ctx.now)
      : increase(a.energyUsage, 0n, a.latestConsumeTimeForEnergy, ctx.now);
  const limit = r === 'BANDWIDTH' ? ctx.params.totalNetLimit : ctx.params.totalEnergyCurrentLimit;
  const asTrx = (usage * TRX * totalWeight(ctx.world, r)) / limit;
  const v2 = asTrx - a.acquired[r];
  return v2 > 0n ? v2 : 0n;
}

export const delegateResourceActuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid address');
    const account = ctx.world.accounts.get(owner);
    if (!account) throw new ContractValidateError(`Account[${readable(owner)}] not exists`);
    const balance = int(v, 'balance');
    if (balance < TRX)
      throw new ContractValidateError('delegateBalance must be greater than or equal to 1 TRX');
    const r = stakeResource(res(v));
    if (!r) throw new ContractValidateError('ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]');
    if (account.frozenV2[r] - usedStake(ctx, account, r) < balance) {
      const what = r === 'BANDWIDTH' ? 'FreezeBandwidthV2' : 'FreezeEnergyV2';
      throw new ContractValidateError(
        `delegateBalance must be less than or equal to available ${what} balance`,
      );
    }
    const receiver = addr(v, 'receiver_address');
    if (!validAddress(receiver)) throw new ContractValidateError('Invalid receiverAddress');
    if (receiver === owner)
      throw new ContractValidateError('receiverAddress must not be the same as ownerAddress');
    const receiverAccount = ctx.world.accounts.get(receiver);
    if (!receiverAccount) throw new ContractValidateError(`Account[${readable(receiver)}] not exists`);
    if (v['lock']) {
      const period = int(v, 'lock_period');
      if (period < 0n || period > ctx.params.maxDelegateLockPeriod) {
        throw new ContractValidateError(
          `The lock period of delegate resource cannot be less than 0 and cannot exceed ${ctx.params.maxDelegateLockPeriod}!`,
        );
      }
    }
    if (receiverAccount.type === 'Contract') {
      throw new ContractValidateError('Do not allow delegate resources to contract addresses');
    }
  },
  execute(ctx, v) {
    const owner = mustAccount(ctx, addr(v, 'owner_address'));
    const receiver = mustAccount(ctx, addr(v, 'receiver_address'));
    const r = stakeResource(res(v)) as StakeResource;
    const balance = int(v, 'balance');
    const lock = v['lock'] === true;
    owner.frozenV2[r] -= balance;
    owner.delegatedOut[r] += balance;
    receiver.acquired[r] += balance;
    const key = delegationKey(owner.address, receiver.address, lock);
    const d: Delegation = ctx.world.delegations.get(key) ?? {
      from: owner.address,
      to: receiver.address,
      lock,
      bandwidth: 0n,
      energy: 0n,
      expireBandwidth: 0n,
      expireEnergy: 0n,
    };
    const period = int(v, 'lock_period');
    const expire = lock
      ? ctx.headTime + (period === 0n ? DELEGATE_PERIOD_MS : period * BLOCK_INTERVAL_MS)
      : 0n;
    if (r === 'BANDWIDTH') {
      d.bandwidth += balance;
      d.expireBandwidth = expire;
    } else {
      d.energy += balance;
      d.expireEnergy = expire;
    }
    ctx.world.delegations.set(key, d);
    return { fee: 0n };
  },
};

function undelegatable(ctx: ActuatorContext, owner: string, receiver: string, r: StakeResource): bigint {
  const unlocked = ctx.world.delegations.get(delegationKey(owner, receiver, false));
  const locked = ctx.world.delegations.get(delegationKey(owner, receiver, true));
  let sum = 0n;
  if (unlocked) sum += r === 'BANDWIDTH' ? unlocked.bandwidth : unlocked.energy;
  if (locked) {
    const expire = r === 'BANDWIDTH' ? locked.expireBandwidth : locked.expireEnergy;
    if (expire < ctx.headTime) sum += r === 'BANDWIDTH' ? locked.bandwidth : locked.energy;
  }
  return sum;
}

export const unDelegateResourceActuator: Actuator = {
  validate(ctx, v) {
    const owner = addr(v, 'owner_address');
    if (!validAddress(owner)) throw new ContractValidateError('Invalid address');
    if (!ctx.world.accounts.has(owner))
      throw new ContractValidateError(`Account[${readable(owner)}] does not exist`);
    const receiver = addr(v, 'receiver_address');
    if (!validAddress(receiver)) throw new ContractValidateError('Invalid receiverAddress');
    if (receiver === owner)
      throw new ContractValidateError('receiverAddress must not be the same as ownerAddress');
    if (
      !ctx.world.delegations.has(delegationKey(owner, receiver, false)) &&
      !ctx.world.delegations.has(delegationKey(owner, receiver, true))
    ) {
      throw new ContractValidateError('delegated Resource does not exist');
    }
    const balance = int(v, 'balance');
    if (balance <= 0n) throw new ContractValidateError('unDelegateBalance must be more than 0 TRX');
    const r = stakeResource(res(v));
    if (!r) throw new ContractValidateError('ResourceCode error.valid ResourceCode[BANDWIDTH、Energy]');
    const available = undelegatable(ctx, owner, receiver, r);
    if (available < balance) {
      throw new ContractValidateError(
        r === 'BANDWIDTH'
          ? `insufficient delegatedFrozenBalance(BANDWIDTH), request=${balance}, unlock_balance=${available}`
          : `insufficient delegateFrozenBalance(Energy), request=${balance}, unlock_balance=${available}`,
      );
    }
  },
  execute(ctx, v) {
    const owner = mustAccount(ctx, addr(v, 'owner_address'));
    const receiverHex = addr(v, 'receiver_address');
    const r = stakeResource(res(v)) as StakeResource;
    const balance = int(v, 'balance');
    const receiver = ctx.world.accounts.get(receiverHex);
    if (receiver) {
      // The receiver hands back the share of its usage that the returned stake was covering.
      transferUsage(ctx, owner, receiver, r, balance);
      receiver.acquired[r] -= balance;
    }
    let left = balance;
    for (const lock of [false, true]) {
      const key = delegationKey(owner.address, receiverHex, lock);
      const d = ctx.world.delegations.get(key);
      if (!d || left === 0n) continue;
      if (lock && (r === 'BANDWIDTH' ? d.expireBandwidth : d.expireEnergy) >= ctx.headTime) continue;
      const have = r === 'BANDWIDTH' ? d.bandwidth : d.energy;
      const take = minBig(have, left);
      if (r === 'BANDWIDTH') d.bandwidth -= take;
      else d.energy -= take;
      left -= take;
      if (d.bandwidth === 0n && d.energy === 0n) ctx.world.delegations.delete(key);
    }
    owner.delegatedOut[r] -= balance;
    owner.frozenV2[r] += balance;
    return { fee: 0n };
  },
};

function transferUsage(
  ctx: ActuatorContext,
  owner: Account,
  receiver: Account,
  r: StakeResource,
  balance: bigint,
) {
  const frozen = receiver.frozenV2[r] + receiver.acquired[r];
  if (frozen === 0n) return;
  if (r === 'BANDWIDTH') {
    const usage = increase(receiver.netUsage, 0n, receiver.latestConsumeTime, ctx.now);
    const max = (balance * ctx.params.totalNetLimit) / (TRX * (totalWeight(ctx.world, r) || 1n));
    let moved = (usage * balance) / frozen;
    if (moved > max) moved = max;
    receiver.netUsage = usage - moved;
    receiver.latestConsumeTime = ctx.now;
    owner.netUsage = increase(owner.netUsage, 0n, owner.latestConsumeTime, ctx.now) + moved;
    owner.latestConsumeTime = ctx.now;
  } else {
    const usage = increase(receiver.energyUsage, 0n, receiver.latestConsumeTimeForEnergy, ctx.now);
    const max = (balance * ctx.params.totalEnergyCurrentLimit) / (TRX * (totalWeight(ctx.world, r) || 1n));
    let moved = (usage * balance) / frozen;
    if (moved > max) moved = max;
    receiver.energyUsage = usage - moved;
    receiver.latestConsumeTimeForEnergy = ctx.now;
    owner.energyUsage = increase(owner.energyUsage, 0n, owner.latestConsumeTimeForEnergy, ctx.now) + moved;
    owner.latestConsumeTimeForEnergy = ctx.now;
  }
}

export const ACTUATORS: Record<string, Actuator> = {
  AccountCreateContract: createAccountActuator,
  TransferContract: transferActuator,
  TransferAssetContract: transferAssetActuator,
  FreezeBalanceV2Contract: freezeBalanceV2Actuator,
  UnfreezeBalanceV2Contract: unfreezeBalanceV2Actuator,
  WithdrawExpireUnfreezeContract: withdrawExpireUnfreezeActuator,
  CancelAllUnfreezeV2Contract: cancelAllUnfreezeV2Actuator,
  DelegateResourceContract: delegateResourceActuator,
  UnDelegateResourceContract: unDelegateResourceActuator,
};
