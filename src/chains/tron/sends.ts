/**
 * The Tron side of the send pipeline (services/send-pipeline.ts): each send's fields checked, its
 * transaction built by the node, pre-flighted (contract calls), signed and broadcast; the unsigned
 * builds and the broadcasts of transactions signed elsewhere.
 */

import { ApiError, invalidField } from '../../errors.ts';
import { assetAmount, formatAmount, parseAmount } from '../amount.ts';
import { amountField } from '../amount-field.ts';
import type { ChainRegistry } from '../registry.ts';
import type { BuiltSend, PreparedSend, SendRecord, SignedBroadcast } from '../send-contract.ts';
import type { Network } from '../types.ts';
import { broadcastTxid, TronAdapter } from './adapter.ts';
import { isTronAddress } from './address.ts';
import { type DecodedContract, decodeContract, MalformedContractError } from './decode-contract.ts';
import { DistinctTransactions } from './distinct-transactions.ts';
import { TronContractError } from './errors.ts';
import { tronAnswer } from './send-wording.ts';
import { TRX_DECIMALS } from './trx-amount.ts';
import type {
  BroadcastableTronTransaction,
  TronResource,
  TronResourceEstimate,
  TronTransaction,
} from './types.ts';

export interface TronSendsDeps {
  registry: ChainRegistry;
  /** Default most TRX a TRC20/TRC721 transfer may burn (sun), when the request sets no `fee_limit`. */
  feeLimitSun: bigint;
}

interface Transfer {
  from: string;
  to: string;
}

export type StakingAction = 'freeze' | 'unfreeze' | 'delegate' | 'undelegate';

/** The sends of Tron: TRX, TRC10, TRC20, TRC721 and the staking actions. */
export class TronSends {
  /** Two identical transfers built at once are still two transactions (two builds, two sends). */
  readonly #distinct = new DistinctTransactions();

  constructor(private readonly deps: TronSendsDeps) {}

  private adapter(network: Network): TronAdapter {
    return this.deps.registry.adapterOf('tron', network, TronAdapter);
  }

  trx(network: Network, body: Transfer & { amount: unknown }): PreparedSend {
    const sun = amountField(body.amount, TRX_DECIMALS);
    const record = { type: 'TRX', ...parties(body), amount: assetAmount(sun, TRX_DECIMALS) };
    return this.prepare(network, body.from, record, (a) => a.buildTrxTransfer(body.from, body.to, sun));
  }

  trc20(
    network: Network,
    body: Transfer & { contractaddress: string; amount: unknown; fee_limit?: unknown },
  ): PreparedSend {
    const feeLimit = this.feeLimit(body.fee_limit);
    const record: SendRecord = {
      type: 'TRC20',
      ...parties(body),
      contractaddress: body.contractaddress,
      amount: null,
    };
    return this.prepare(
      network,
      body.from,
      record,
      async (a) => {
        const decimals = await a.getTrc20Decimals(body.contractaddress);
        const units = amountField(body.amount, decimals);
        record.amount = assetAmount(units, decimals);
        return a.buildTrc20Transfer(body.from, body.to, body.contractaddress, units, feeLimit);
      },
      feeLimit,
    );
  }

  trc721(
    network: Network,
    body: Transfer & { contractaddress: string; tokenid: unknown; fee_limit?: unknown },
  ): PreparedSend {
    const tokenId = tokenIdField(body.tokenid);
    const feeLimit = this.feeLimit(body.fee_limit);
    const record = {
      type: 'TRC721',
      ...parties(body),
      contractaddress: body.contractaddress,
      amount: assetAmount(1n, 0),
      tokenid: tokenId.toString(),
    };
    return this.prepare(
      network,
      body.from,
      record,
      (a) => a.buildTrc721Transfer(body.from, body.to, body.contractaddress, tokenId, feeLimit),
      feeLimit,
    );
  }

  trc10(network: Network, body: Transfer & { tokenId: string; amount: unknown }): PreparedSend {
    const record: SendRecord = { type: 'TRC10', ...parties(body), amount: null, tokenid: body.tokenId };
    return this.prepare(network, body.from, record, async (a) => {
      const { precision } = await a.getTrc10Info(body.tokenId);
      const units = amountField(body.amount, precision);
      record.amount = assetAmount(units, precision);
      return a.buildTrc10Transfer(body.from, body.to, body.tokenId, units);
    });
  }

  /** Freezing, unfreezing, delegating or taking back TRX for a resource; the answer says `result: true`. */
  stake(
    network: Network,
    action: StakingAction,
    body: { address: string; amount: unknown; resource: TronResource; receiver?: string },
  ): PreparedSend {
    const sun = amountField(body.amount, TRX_DECIMALS);
    const record = {
      type: action.toUpperCase(),
      from: body.address,
      to: body.receiver ?? null,
      amount: assetAmount(sun, TRX_DECIMALS),
    };
    const receiver = body.receiver ?? '';
    if ((action === 'delegate' || action === 'undelegate') && !body.receiver) {
      throw invalidField('receiver', 'The receiver field is required.');
    }
    const prepared = this.prepare(network, body.address, record, (a) => {
      if (action === 'freeze') return a.buildFreeze(body.address, sun, body.resource);
      if (action === 'unfreeze') return a.buildUnfreeze(body.address, sun, body.resource);
      if (action === 'delegate') return a.buildDelegate(body.address, receiver, sun, body.resource);
      return a.buildUndelegate(body.address, receiver, sun, body.resource);
    });
    return {
      ...prepared,
      build: async () => {
        const built = await prepared.build();
        return {
          txid: built.txid,
          send: async (key, intent) => {
            const { txid } = await built.send(key, intent);
            return { txid, data: { result: true, txid } };
          },
        };
      },
    };
  }

  // --- unsigned builds: the same checks as the sends, nothing signed, broadcast or stored ---------

  /** An unsigned TRX transfer for the caller to sign. */
  async buildTrx(network: Network, body: Transfer & { amount: unknown }) {
    const sun = amountField(body.amount, TRX_DECIMALS);
    return this.unsigned(this.adapter(network).buildTrxTransfer(body.from, body.to, sun));
  }

  /** An unsigned TRC20 transfer for the caller to sign; `amount` in the token's units. */
  async buildTrc20(
    network: Network,
    body: Transfer & { contractaddress: string; amount: unknown; fee_limit?: unknown },
  ) {
    const adapter = this.adapter(network);
    const decimals = await adapter.getTrc20Decimals(body.contractaddress);
    const units = amountField(body.amount, decimals);
    const feeLimit = this.feeLimit(body.fee_limit);
    return this.unsigned(
      adapter.buildTrc20Transfer(body.from, body.to, body.contractaddress, units, feeLimit),
    );
  }

  /** An unsigned TRC721 transferFrom(from, to, tokenid) for the caller to sign. */
  async buildTrc721(
    network: Network,
    body: Transfer & { contractaddress: string; tokenid: unknown; fee_limit?: unknown },
  ) {
    const tokenId = tokenIdField(body.tokenid);
    const feeLimit = this.feeLimit(body.fee_limit);
    return this.unsigned(
      this.adapter(network).buildTrc721Transfer(body.from, body.to, body.contractaddress, tokenId, feeLimit),
    );
  }

  /** An unsigned TRC10 transfer for the caller to sign; `amount` in the asset's units. */
  async buildTrc10(network: Network, body: Transfer & { tokenId: string; amount: unknown }) {
    const adapter = this.adapter(network);
    const { precision } = await adapter.getTrc10Info(body.tokenId);
    const units = amountField(body.amount, precision);
    return this.unsigned(adapter.buildTrc10Transfer(body.from, body.to, body.tokenId, units));
  }

  /** A transaction the caller signed; the history records what its contract moves. */
  signed(network: Network, tx: BroadcastableTronTransaction): SignedBroadcast {
    const adapter = this.adapter(network);
    return {
      txid: tx.txID,
      record: () => broadcastRecord(adapter, signedContract(tx)),
      broadcast: async (intent) => {
        // A transaction without raw_data has no id; the node refuses it, and nothing needs settling.
        if (typeof tx.raw_data === 'object' && tx.raw_data !== null) await intent(broadcastTxid(tx));
        return (await adapter.broadcast(tx)).txid;
      },
    };
  }

  /**
   * A send whose fields are checked: `build` asks the node for the transaction; `send` pre-flights a
   * contract call (energy, bandwidth and TRX to burn within the fee limit), signs and broadcasts.
   */
  private prepare(
    network: Network,
    from: string,
    record: SendRecord,
    build: (adapter: TronAdapter) => Promise<TronTransaction>,
    feeLimitSun?: bigint,
  ): PreparedSend {
    if (!isTronAddress(from)) throw invalidField('from', 'The from field must be a Tron address.');
    const adapter = this.adapter(network);
    return {
      from,
      record,
      build: async (): Promise<BuiltSend> => {
        const tx = await this.#distinct.distinct(await build(adapter));
        return {
          txid: tx.txID,
          send: async (key, intent) => {
            const estimate =
              feeLimitSun === undefined ? undefined : await preflight(adapter, from, tx, feeLimitSun);
            const signed = await adapter.sign(tx, key);
            await intent(broadcastTxid(signed));
            const { txid } = await adapter.broadcast(signed);
            return estimate === undefined || feeLimitSun === undefined
              ? { txid, data: { txid } }
              : { txid, data: { txid, estimate: estimateOut(estimate, feeLimitSun) } };
          },
        };
      },
    };
  }

  /** A built transaction; the node's refusal (`balance is not sufficient` ...) worded as the sends word it. */
  private async unsigned(build: Promise<TronTransaction>): Promise<TronTransaction> {
    try {
      return await this.#distinct.distinct(await build);
    } catch (error) {
      throw tronAnswer(error);
    }
  }

  private feeLimit(raw: unknown): bigint {
    if (raw === undefined || raw === null || raw === '') return this.deps.feeLimitSun;
    try {
      return parseAmount(raw, TRX_DECIMALS);
    } catch (error) {
      throw invalidField('fee_limit', `The fee_limit field (TRX) is invalid: ${(error as Error).message}.`);
    }
  }
}

function parties(body: Transfer) {
  return { from: body.from, to: body.to };
}

/** A contract call refused before broadcast when it would need more than the account has or the fee limit. */
async function preflight(
  adapter: TronAdapter,
  from: string,
  tx: TronTransaction,
  feeLimitSun: bigint,
): Promise<TronResourceEstimate> {
  const estimate = await adapter.estimateContractTransfer(from, tx);
  const problems = adapter.preflightProblems(estimate, feeLimitSun);
  if (problems.length > 0) {
    throw new ApiError(
      422,
      `Transfer refused before broadcast: ${problems.join('; ')}`,
      problems.map((message) => ({ field: 'from', message })),
    );
  }
  return estimate;
}

function tokenIdField(raw: unknown): bigint {
  const text = String(raw ?? '').trim();
  if (!/^\d{1,78}$/.test(text)) throw invalidField('tokenid', 'The tokenid field must be a whole number.');
  return BigInt(text);
}

function estimateOut(estimate: TronResourceEstimate, feeLimitSun: bigint) {
  const trx = (sun: bigint) => formatAmount(sun, TRX_DECIMALS);
  return {
    energy: estimate.energy.toString(),
    bandwidth: estimate.bandwidth.toString(),
    energy_available: estimate.energyAvailable.toString(),
    bandwidth_available: estimate.bandwidthAvailable.toString(),
    trx_burn: trx(estimate.trxNeededSun),
    fee_limit: trx(feeLimitSun),
    balance: trx(estimate.balanceSun),
  };
}

/** What a signed transaction does; a transfer the node could not read is the caller's raw_data at fault. */
function signedContract(tx: BroadcastableTronTransaction): DecodedContract {
  try {
    return decodeContract(tx);
  } catch (error) {
    if (error instanceof MalformedContractError) throw invalidField('raw_data', error.message);
    throw error;
  }
}

/** A caller-signed transaction's history entry: what it moves, in the asset's units as sends record it. */
async function broadcastRecord(adapter: TronAdapter, decoded: DecodedContract): Promise<SendRecord> {
  const { from, to } = decoded;
  const parties = { from: from ?? '', to };
  switch (decoded.type) {
    case 'TRX':
      return { type: 'TRX', ...parties, amount: assetAmount(decoded.amount, TRX_DECIMALS) };
    case 'TRC10': {
      const precision = await trc10PrecisionOrRaw(adapter, decoded.tokenId);
      const amount = assetAmount(decoded.amount, precision);
      return { type: 'TRC10', ...parties, amount, tokenid: decoded.tokenId };
    }
    case 'TRC20': {
      const decimals = await trc20DecimalsOrRaw(adapter, decoded.contract);
      const amount = assetAmount(decoded.amount, decimals);
      return { type: 'TRC20', ...parties, amount, contractaddress: decoded.contract };
    }
    case 'TRC721':
      return {
        type: 'TRC721',
        ...parties,
        amount: assetAmount(1n, 0),
        contractaddress: decoded.contract,
        tokenid: decoded.tokenId.toString(),
      };
    case 'CONTRACT':
      return { type: 'CONTRACT', ...parties, amount: null, contractaddress: decoded.contract };
    case 'OTHER':
      return { type: decoded.contractType, ...parties, amount: null };
  }
}

/**
 * Decimals of a broadcast TRC20 amount; 0 (raw units) for a contract that does not answer decimals(),
 * which the node, not the gateway, gets to judge.
 */
async function trc20DecimalsOrRaw(adapter: TronAdapter, contract: string): Promise<number> {
  try {
    return await adapter.getTrc20Decimals(contract);
  } catch (error) {
    if (error instanceof TronContractError) return 0;
    throw error;
  }
}

/** Precision of a broadcast TRC10 amount; 0 (raw units) for an asset unknown to the node (it refuses it). */
async function trc10PrecisionOrRaw(adapter: TronAdapter, tokenId: string): Promise<number> {
  try {
    return (await adapter.getTrc10Info(tokenId)).precision;
  } catch (error) {
    if (error instanceof TronContractError) return 0;
    throw error;
  }
}
