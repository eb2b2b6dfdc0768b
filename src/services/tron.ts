import type { QuotaService } from '../accounts/quotas.ts';
import { formatAmount, parseAmount } from '../chains/amount.ts';
import type { KeyCodec } from '../chains/family.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { TronAdapter } from '../chains/tron/adapter.ts';
import { isTronAddress, toBase58Address } from '../chains/tron/address.ts';
import {
  type DecodedContract,
  decodeContract,
  MalformedContractError,
} from '../chains/tron/decode-contract.ts';
import { TronBroadcastError, TronContractError, TronNodeError } from '../chains/tron/errors.ts';
import { trc10Info } from '../chains/tron/reads.ts';
import type {
  BroadcastableTronTransaction,
  TronResource,
  TronResourceEstimate,
  TronTransaction,
} from '../chains/tron/types.ts';
import type { Network } from '../chains/types.ts';
import { type AddressKeys, KeyMismatchError, type SigningProof } from '../custody/address-keys.ts';
import { WrongPasswordError } from '../custody/key-vault.ts';
import { ApiError, invalidField } from '../errors.ts';
import { historyAmount, type TransactionLog } from './transaction-log.ts';

export const TRX_DECIMALS = 6;

export interface TronDeps {
  registry: ChainRegistry;
  addressKeys: AddressKeys;
  transactions: TransactionLog;
  quotas: QuotaService;
  keys: KeyCodec;
  /** Default most TRX a TRC20/TRC721 transfer may burn (sun), when the request sets no `fee_limit`. */
  feeLimitSun: bigint;
}

/** What a send records in the history besides its outcome. */
interface SendRecord {
  type: string;
  from: string;
  to: string | null;
  contractaddress?: string | null;
  /** Decimal text, already in the asset's units. */
  amount: string | null;
  tokenid?: string | null;
}

export interface SendResult {
  txid: string;
  estimate?: EstimateOut;
}

export interface EstimateOut {
  energy: string;
  bandwidth: string;
  energy_available: string;
  bandwidth_available: string;
  trx_burn: string;
  fee_limit: string;
  balance: string;
}

/** The Tron use cases behind the routes: keys, reads, sends, staking; every send recorded in the history. */
export class TronService {
  constructor(private readonly deps: TronDeps) {}

  adapter(network: Network): TronAdapter {
    return this.deps.registry.get<TronAdapter>('tron', network);
  }

  private scope(userId: string, network: Network) {
    return { userId, chain: 'tron' as const, network, codec: this.deps.keys };
  }

  // --- token reads and chain parameters (the reads every chain has: chains/tron/reads.ts) -------

  async trc20Balance(network: Network, address: string, contract: string) {
    const { balance, decimals } = await this.adapter(network).getTrc20Balance(address, contract);
    return {
      tronaddress: toBase58Address(address),
      decimals,
      balance: balance.toString(),
      contractaddress: toBase58Address(contract),
    };
  }

  async trc10Balance(network: Network, address: string, tokenId: string) {
    const adapter = this.adapter(network);
    const [balance, info] = await Promise.all([
      adapter.getTrc10Balance(address, tokenId),
      trc10Info(adapter, tokenId),
    ]);
    return {
      tronaddress: toBase58Address(address),
      decimals: info.precision,
      balance: balance.toString(),
      tokenid: tokenId,
    };
  }

  async trc20Info(network: Network, contract: string) {
    try {
      return await this.adapter(network).getTrc20Info(contract);
    } catch (error) {
      if (!(error instanceof TronContractError)) throw error;
      throw new ApiError(400, 'Error fetching TRC20 contract', [
        { field: 'contract_address', message: error.message },
      ]);
    }
  }

  chainParameters(network: Network) {
    return this.adapter(network).getChainParameters();
  }

  // --- sends -----------------------------------------------------------------------------------

  async sendTrx(
    userId: string,
    network: Network,
    body: { from: string; to: string; amount: unknown } & SigningProof,
  ) {
    const sun = amountField(body.amount, TRX_DECIMALS);
    return this.send(
      userId,
      network,
      body,
      { type: 'TRX', from: body.from, to: body.to, amount: historyAmount(sun, TRX_DECIMALS) },
      (adapter) => adapter.buildTrxTransfer(body.from, body.to, sun),
    );
  }

  async sendTrc20(
    userId: string,
    network: Network,
    body: {
      from: string;
      to: string;
      contractaddress: string;
      amount: unknown;
      fee_limit?: unknown;
    } & SigningProof,
  ) {
    const adapter = this.adapter(network);
    const decimals = await adapter.getTrc20Decimals(body.contractaddress);
    const units = amountField(body.amount, decimals);
    const feeLimit = this.feeLimit(body.fee_limit);
    const record = {
      type: 'TRC20',
      from: body.from,
      to: body.to,
      contractaddress: body.contractaddress,
      amount: historyAmount(units, decimals),
    };
    return this.send(
      userId,
      network,
      body,
      record,
      (a) => a.buildTrc20Transfer(body.from, body.to, body.contractaddress, units, feeLimit),
      feeLimit,
    );
  }

  async sendTrc721(
    userId: string,
    network: Network,
    body: {
      from: string;
      to: string;
      contractaddress: string;
      tokenid: string | number;
      fee_limit?: unknown;
    } & SigningProof,
  ) {
    const tokenId = tokenIdField(body.tokenid);
    const feeLimit = this.feeLimit(body.fee_limit);
    const record = {
      type: 'TRC721',
      from: body.from,
      to: body.to,
      contractaddress: body.contractaddress,
      amount: historyAmount(1n, 0),
      tokenid: tokenId.toString(),
    };
    return this.send(
      userId,
      network,
      body,
      record,
      (a) => a.buildTrc721Transfer(body.from, body.to, body.contractaddress, tokenId, feeLimit),
      feeLimit,
    );
  }

  async sendTrc10(
    userId: string,
    network: Network,
    body: { from: string; to: string; tokenId: string; amount: unknown } & SigningProof,
  ) {
    const adapter = this.adapter(network);
    const info = await trc10Info(adapter, body.tokenId);
    const units = amountField(body.amount, info.precision);
    const record = {
      type: 'TRC10',
      from: body.from,
      to: body.to,
      amount: historyAmount(units, info.precision),
      tokenid: body.tokenId,
    };
    return this.send(userId, network, body, record, (a) =>
      a.buildTrc10Transfer(body.from, body.to, body.tokenId, units),
    );
  }

  // --- unsigned builds: the same checks as the sends, nothing signed, broadcast or stored ---------

  /** An unsigned TRX transfer for the caller to sign. */
  async buildTrx(network: Network, body: { from: string; to: string; amount: unknown }) {
    const sun = amountField(body.amount, TRX_DECIMALS);
    return unsigned(this.adapter(network).buildTrxTransfer(body.from, body.to, sun));
  }

  /** An unsigned TRC20 transfer for the caller to sign; `amount` in the token's units. */
  async buildTrc20(
    network: Network,
    body: { from: string; to: string; contractaddress: string; amount: unknown; fee_limit?: unknown },
  ) {
    const adapter = this.adapter(network);
    const decimals = await adapter.getTrc20Decimals(body.contractaddress);
    const units = amountField(body.amount, decimals);
    const feeLimit = this.feeLimit(body.fee_limit);
    return unsigned(adapter.buildTrc20Transfer(body.from, body.to, body.contractaddress, units, feeLimit));
  }

  /** An unsigned TRC721 transferFrom(from, to, tokenid) for the caller to sign. */
  async buildTrc721(
    network: Network,
    body: { from: string; to: string; contractaddress: string; tokenid: unknown; fee_limit?: unknown },
  ) {
    const tokenId = tokenIdField(body.tokenid);
    const feeLimit = this.feeLimit(body.fee_limit);
    return unsigned(
      this.adapter(network).buildTrc721Transfer(body.from, body.to, body.contractaddress, tokenId, feeLimit),
    );
  }

  /** An unsigned TRC10 transfer for the caller to sign; `amount` in the asset's units. */
  async buildTrc10(network: Network, body: { from: string; to: string; tokenId: string; amount: unknown }) {
    const adapter = this.adapter(network);
    const info = await trc10Info(adapter, body.tokenId);
    const units = amountField(body.amount, info.precision);
    return unsigned(adapter.buildTrc10Transfer(body.from, body.to, body.tokenId, units));
  }

  /** Broadcasts a transaction the caller signed; counted as a transaction and recorded. */
  async broadcast(
    userId: string,
    network: Network,
    tx: BroadcastableTronTransaction,
  ): Promise<{ txid: string }> {
    const adapter = this.adapter(network);
    // Read before broadcasting: once the node has the transaction, a failed token lookup must not hide it.
    const record = await broadcastRecord(adapter, signedContract(tx));
    return this.deps.quotas.withTransactionQuota(userId, async () => {
      try {
        const { txid } = await adapter.broadcast(tx);
        await this.record(userId, network, record, txid, { result: true, txid }, 201);
        return { txid };
      } catch (error) {
        await this.recordFailure(userId, network, record, tx.txID, error);
        throw translate(error);
      }
    });
  }

  // --- staking ---------------------------------------------------------------------------------

  async stake(
    userId: string,
    network: Network,
    action: 'freeze' | 'unfreeze' | 'delegate' | 'undelegate',
    body: { address: string; amount: unknown; resource: TronResource; receiver?: string } & SigningProof,
  ) {
    const sun = amountField(body.amount, TRX_DECIMALS);
    const record = {
      type: action.toUpperCase(),
      from: body.address,
      to: body.receiver ?? null,
      amount: historyAmount(sun, TRX_DECIMALS),
    };
    const receiver = body.receiver ?? '';
    if ((action === 'delegate' || action === 'undelegate') && !body.receiver) {
      throw invalidField('receiver', 'The receiver field is required.');
    }
    const { txid } = await this.send(userId, network, { ...body, from: body.address }, record, (a) => {
      if (action === 'freeze') return a.buildFreeze(body.address, sun, body.resource);
      if (action === 'unfreeze') return a.buildUnfreeze(body.address, sun, body.resource);
      if (action === 'delegate') return a.buildDelegate(body.address, receiver, sun, body.resource);
      return a.buildUndelegate(body.address, receiver, sun, body.resource);
    });
    return { result: true, txid };
  }

  // --- the send pipeline -----------------------------------------------------------------------

  /**
   * Build, prove the key, pre-flight (contract calls), sign, broadcast, record. A transaction unit is
   * reserved for the broadcast and given back if it fails; node failures are recorded in the history too.
   */
  private async send(
    userId: string,
    network: Network,
    proof: SigningProof & { from: string },
    record: SendRecord,
    build: (adapter: TronAdapter) => Promise<TronTransaction>,
    feeLimitSun?: bigint,
  ): Promise<SendResult> {
    const adapter = this.adapter(network);
    let tx: TronTransaction;
    try {
      tx = await build(adapter);
    } catch (error) {
      if (error instanceof TronNodeError) await this.recordFailure(userId, network, record, null, error);
      throw translate(error);
    }
    const privateKey = await this.signingKey(userId, network, proof, tx.txID);
    let estimate: TronResourceEstimate | undefined;
    if (feeLimitSun !== undefined) {
      estimate = await adapter.estimateContractTransfer(proof.from, tx);
      const problems = adapter.preflightProblems(estimate, feeLimitSun);
      if (problems.length > 0) {
        throw new ApiError(
          422,
          `Transfer refused before broadcast: ${problems.join('; ')}`,
          problems.map((message) => ({ field: 'from', message })),
        );
      }
    }
    const signed = adapter.sign(tx, privateKey);
    return this.deps.quotas.withTransactionQuota(userId, async () => {
      try {
        const { txid } = await adapter.broadcast(signed);
        await this.record(userId, network, record, txid, { result: true, txid }, 201);
        return estimate === undefined || feeLimitSun === undefined
          ? { txid }
          : { txid, estimate: estimateOut(estimate, feeLimitSun) };
      } catch (error) {
        await this.recordFailure(userId, network, record, signed.txID, error);
        throw translate(error);
      }
    });
  }

  /** The caller's key for `from`; a wrong key or password is the node's own signature error, as the spec has it. */
  private async signingKey(
    userId: string,
    network: Network,
    proof: SigningProof & { from: string },
    txid: string,
  ) {
    if (!isTronAddress(proof.from)) throw invalidField('from', 'The from field must be a Tron address.');
    try {
      return await this.deps.addressKeys.signingKey(this.scope(userId, network), proof.from, proof);
    } catch (error) {
      if (error instanceof KeyMismatchError) {
        throw new ApiError(
          422,
          `Validate signature error: ${txid} is signed by ${error.signer} but it is not contained of permission.`,
        );
      }
      if (error instanceof WrongPasswordError) {
        throw new ApiError(
          422,
          `Validate signature error: the password does not open the key of ${toBase58Address(proof.from)}`,
        );
      }
      throw error;
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

  private async record(
    userId: string,
    network: Network,
    record: SendRecord,
    txid: string,
    response: unknown,
    httpStatus: number,
  ) {
    await this.deps.transactions.record({
      userId,
      chain: 'tron',
      network,
      ...record,
      txid,
      response,
      httpStatus,
    });
  }

  private async recordFailure(
    userId: string,
    network: Network,
    record: SendRecord,
    txid: string | null,
    error: unknown,
  ) {
    if (!(error instanceof TronBroadcastError || error instanceof TronNodeError)) return;
    const response = { code: error.code, message: error.message };
    await this.deps.transactions.record({
      userId,
      chain: 'tron',
      network,
      ...record,
      txid,
      response,
      httpStatus: 422,
    });
  }
}

/** A built transaction; the node's refusal (`balance is not sufficient` ...) worded as the sends word it. */
async function unsigned(build: Promise<TronTransaction>): Promise<TronTransaction> {
  try {
    return await build;
  } catch (error) {
    throw translate(error);
  }
}

/** The node's words, in the API's documented form (`balance is not sufficient`, `Validate signature error ...`). */
function translate(error: unknown): unknown {
  if (error instanceof TronBroadcastError || error instanceof TronNodeError)
    return new ApiError(422, error.apiMessage);
  return error;
}

function amountField(raw: unknown, decimals: number): bigint {
  try {
    return parseAmount(raw, decimals);
  } catch (error) {
    throw invalidField('amount', `The amount field is invalid: ${(error as Error).message}.`);
  }
}

function tokenIdField(raw: unknown): bigint {
  const text = String(raw ?? '').trim();
  if (!/^\d{1,78}$/.test(text)) throw invalidField('tokenid', 'The tokenid field must be a whole number.');
  return BigInt(text);
}

function estimateOut(estimate: TronResourceEstimate, feeLimitSun: bigint): EstimateOut {
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
      return { type: 'TRX', ...parties, amount: historyAmount(decoded.amount, TRX_DECIMALS) };
    case 'TRC10': {
      const precision = await trc10PrecisionOrRaw(adapter, decoded.tokenId);
      const amount = historyAmount(decoded.amount, precision);
      return { type: 'TRC10', ...parties, amount, tokenid: decoded.tokenId };
    }
    case 'TRC20': {
      const decimals = await trc20DecimalsOrRaw(adapter, decoded.contract);
      const amount = historyAmount(decoded.amount, decimals);
      return { type: 'TRC20', ...parties, amount, contractaddress: decoded.contract };
    }
    case 'TRC721':
      return {
        type: 'TRC721',
        ...parties,
        amount: historyAmount(1n, 0),
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
