/**
 * Unsigned transactions, built by the node's own builder endpoints (so they are exactly what java-tron
 * builds) and then verified locally the way tronweb's TransactionBuilder does: the protobuf rebuilt
 * from *our* arguments must equal the node's raw_data_hex and txID, and the raw_data JSON (which is
 * what a broadcast sends) must encode to that same hex. A node that answers with anything else (other
 * recipient, amount, contract, fee limit, memo) is refused before a key ever signs it.
 */
import { toHexAddress } from './address.ts';
import {
  TRC20_TRANSFER,
  TRC721_TRANSFER_FROM,
  trc20TransferParameter,
  trc721TransferParameter,
} from './contract-calls.ts';
import { TronInputError, TronInvalidResponseError } from './errors.ts';
import { type NodeJson, safeInt, type TriggerArgs, type TronNodeApi } from './node-api.ts';
import { nodeErrorFrom } from './node-messages.ts';
import { tronweb } from './tronweb.ts';
import type { TronFreezeResource, TronResource, TronTransaction } from './types.ts';

const FREEZE_RESOURCES: readonly string[] = ['BANDWIDTH', 'ENERGY', 'TRON_POWER'];
const DELEGATE_RESOURCES: readonly string[] = ['BANDWIDTH', 'ENERGY'];

/** Staking and unstaking (Stake 2.0) differ only in the node's builder, the amount's field and the contract. */
const STAKE_CHANGES = {
  freeze: {
    nodeCall: 'freezeBalanceV2',
    amountField: 'frozen_balance',
    contractType: 'FreezeBalanceV2Contract',
  },
  unfreeze: {
    nodeCall: 'unfreezeBalanceV2',
    amountField: 'unfreeze_balance',
    contractType: 'UnfreezeBalanceV2Contract',
  },
} as const;

export class TronTransactionBuilder {
  constructor(private readonly node: TronNodeApi) {}

  async trxTransfer(from: string, to: string, sun: bigint): Promise<TronTransaction> {
    const args = {
      owner_address: toHexAddress(from),
      to_address: toHexAddress(to),
      amount: positive(sun, 'amount'),
    };
    const body = await this.node.createTransaction(args.owner_address, args.to_address, sun);
    return verified(body, 'TransferContract', args);
  }

  async trc10Transfer(from: string, to: string, tokenId: string, units: bigint): Promise<TronTransaction> {
    const args = {
      owner_address: toHexAddress(from),
      to_address: toHexAddress(to),
      // TRC10 ids travel as the hex of their decimal text (asset_name bytes) when visible=false.
      asset_name: Buffer.from(trc10Id(tokenId), 'utf8').toString('hex'),
      amount: positive(units, 'amount'),
    };
    const body = await this.node.transferAsset(args.owner_address, args.to_address, args.asset_name, units);
    return verified(body, 'TransferAssetContract', args);
  }

  /** AccountCreateContract: `owner` pays for `account` to exist on chain (with no TRX of its own). */
  async accountCreate(owner: string, account: string): Promise<TronTransaction> {
    const args = { owner_address: toHexAddress(owner), account_address: toHexAddress(account) };
    const body = await this.node.createAccount(args.owner_address, args.account_address);
    return verified(body, 'AccountCreateContract', args);
  }

  trc20Transfer(
    from: string,
    to: string,
    contract: string,
    units: bigint,
    feeLimitSun: bigint,
  ): Promise<TronTransaction> {
    return this.trigger(from, contract, TRC20_TRANSFER, trc20TransferParameter(to, units), feeLimitSun);
  }

  trc721Transfer(
    from: string,
    to: string,
    contract: string,
    tokenId: bigint,
    feeLimitSun: bigint,
  ): Promise<TronTransaction> {
    return this.trigger(
      from,
      contract,
      TRC721_TRANSFER_FROM,
      trc721TransferParameter(from, to, tokenId),
      feeLimitSun,
    );
  }

  freeze(owner: string, sun: bigint, resource: TronFreezeResource): Promise<TronTransaction> {
    return this.stake('freeze', owner, sun, resource);
  }

  unfreeze(owner: string, sun: bigint, resource: TronFreezeResource): Promise<TronTransaction> {
    return this.stake('unfreeze', owner, sun, resource);
  }

  /** `lockPeriod` is in blocks (3 s each), as java-tron takes it; only used with `lock`. */
  async delegate(
    owner: string,
    receiver: string,
    sun: bigint,
    resource: TronResource,
    lock = false,
    lockPeriod?: bigint,
  ): Promise<TronTransaction> {
    const args: Record<string, unknown> = {
      owner_address: toHexAddress(owner),
      receiver_address: toHexAddress(receiver),
      balance: positive(sun, 'amount'),
      resource: oneOf(resource, DELEGATE_RESOURCES),
      lock,
    };
    if (lockPeriod !== undefined) args['lock_period'] = safeInt(lockPeriod, 'lock_period');
    const body = await this.node.delegateResource(
      args['owner_address'] as string,
      args['receiver_address'] as string,
      sun,
      resource,
      lock,
      lockPeriod,
    );
    return verified(body, 'DelegateResourceContract', args);
  }

  async undelegate(
    owner: string,
    receiver: string,
    sun: bigint,
    resource: TronResource,
  ): Promise<TronTransaction> {
    const args = {
      owner_address: toHexAddress(owner),
      receiver_address: toHexAddress(receiver),
      balance: positive(sun, 'amount'),
      resource: oneOf(resource, DELEGATE_RESOURCES),
    };
    const body = await this.node.undelegateResource(args.owner_address, args.receiver_address, sun, resource);
    return verified(body, 'UnDelegateResourceContract', args);
  }

  private async stake(
    change: keyof typeof STAKE_CHANGES,
    owner: string,
    sun: bigint,
    resource: TronFreezeResource,
  ): Promise<TronTransaction> {
    const { nodeCall, amountField, contractType } = STAKE_CHANGES[change];
    const args = {
      owner_address: toHexAddress(owner),
      [amountField]: positive(sun, 'amount'),
      resource: oneOf(resource, FREEZE_RESOURCES),
    };
    const body = await this.node[nodeCall](args.owner_address, sun, args.resource);
    return verified(body, contractType, args);
  }

  private async trigger(
    from: string,
    contract: string,
    functionSelector: string,
    parameter: string,
    feeLimitSun: bigint,
  ): Promise<TronTransaction> {
    const args: TriggerArgs = {
      owner_address: toHexAddress(from),
      contract_address: toHexAddress(contract),
      function_selector: functionSelector,
      parameter,
      call_value: 0,
      fee_limit: positive(feeLimitSun, 'fee_limit'),
    };
    const body = await this.node.triggerSmartContract(args);
    const error = nodeErrorFrom(body);
    if (error) throw error;
    const transaction = body['transaction'];
    if (transaction === null || typeof transaction !== 'object') {
      throw new TronInvalidResponseError('Tron node answered triggersmartcontract without a transaction');
    }
    return verified(transaction as NodeJson, 'TriggerSmartContract', args);
  }
}

/** The node's answer as a transaction, after checking it is the one `args` describe. */
async function verified(body: NodeJson, contractType: string, args: object): Promise<TronTransaction> {
  const error = nodeErrorFrom(body);
  if (error) throw error;
  const tx = asTransaction(body, contractType);
  const utils = await tronweb();
  if (!checks(() => utils.transaction.txCheckWithArgs(tx, args, {}))) {
    throw new TronInvalidResponseError(
      `Tron node built a ${contractType} that does not match the requested one; refusing it`,
    );
  }
  if (!checks(() => utils.transaction.txCheck(tx))) {
    throw new TronInvalidResponseError(
      `Tron node sent a ${contractType} whose raw_data does not match raw_data_hex`,
    );
  }
  return {
    txID: tx.txID.toLowerCase(),
    raw_data: tx.raw_data,
    raw_data_hex: tx.raw_data_hex.toLowerCase(),
    visible: false,
  };
}

/** Structural check before tronweb sees it: tronweb's own code throws TypeErrors on missing fields. */
function asTransaction(body: NodeJson, contractType: string): TronTransaction {
  const { txID, raw_data: raw, raw_data_hex: rawHex } = body as Partial<TronTransaction>;
  const contracts = raw && typeof raw === 'object' ? raw.contract : undefined;
  if (
    typeof txID !== 'string' ||
    !/^[0-9a-fA-F]{64}$/.test(txID) ||
    typeof rawHex !== 'string' ||
    !/^(?:[0-9a-fA-F]{2})+$/.test(rawHex) ||
    !Array.isArray(contracts) ||
    contracts.length !== 1 ||
    typeof raw!.ref_block_bytes !== 'string' ||
    typeof raw!.ref_block_hash !== 'string'
  ) {
    throw new TronInvalidResponseError(`Tron node answered with a malformed ${contractType} transaction`);
  }
  if (contracts[0]?.type !== contractType) {
    throw new TronInvalidResponseError(
      `Tron node built a ${String(contracts[0]?.type)} where a ${contractType} was requested; refusing it`,
    );
  }
  if (body['visible'] === true) {
    throw new TronInvalidResponseError(
      'Tron node answered with visible=true although visible=false was requested',
    );
  }
  return { txID, raw_data: raw!, raw_data_hex: rawHex, visible: false };
}

function checks(check: () => boolean): boolean {
  try {
    return check() === true;
  } catch {
    return false;
  }
}

function positive(value: bigint, name: string): number {
  if (typeof value !== 'bigint' || value <= 0n) throw new TronInputError(`${name} must be greater than zero`);
  return safeInt(value, name);
}

function oneOf<T extends string>(value: T, allowed: readonly string[]): T {
  if (!allowed.includes(value)) throw new TronInputError(`resource must be one of ${allowed.join(', ')}`);
  return value;
}

/** TRC10 token ids are decimal numbers from 1000001 up. */
export function trc10Id(tokenId: string): string {
  if (typeof tokenId !== 'string' || !/^[1-9][0-9]{0,18}$/.test(tokenId)) {
    throw new TronInputError('TRC10 token id must be a decimal number such as 1002000');
  }
  return tokenId;
}
