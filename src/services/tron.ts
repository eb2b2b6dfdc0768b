import { formatAmount } from '../chains/amount.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { TronAdapter } from '../chains/tron/adapter.ts';
import { toBase58Address } from '../chains/tron/address.ts';
import { contractStatus, decodeTransfer } from '../chains/tron/decode-contract.ts';
import { TronContractError } from '../chains/tron/errors.ts';
import { decodeTransferLogs } from '../chains/tron/transfer-log.ts';
import { TRX_DECIMALS, trxText } from '../chains/tron/trx-amount.ts';
import type { Network } from '../chains/types.ts';
import { ApiError } from '../errors.ts';

export interface TronDeps {
  registry: ChainRegistry;
}

/** The Tron reads behind the routes (sends: chains/tron/sends.ts). */
export class TronService {
  constructor(private readonly deps: TronDeps) {}

  adapter(network: Network): TronAdapter {
    return this.deps.registry.get<TronAdapter>('tron', network);
  }

  // --- reads -----------------------------------------------------------------------------------

  async blockNumber(network: Network): Promise<number> {
    return Number(await this.adapter(network).getBlockNumber());
  }

  async block(network: Network, id: string): Promise<Record<string, unknown>> {
    const block = await this.adapter(network).getBlock(id);
    if (block === null) throw new ApiError(404, 'Block not found');
    return block;
  }

  async transaction(network: Network, txid: string): Promise<Record<string, unknown>> {
    const tx = await this.adapter(network).getTransaction(normalizeTxid(txid));
    if (tx === null) throw new ApiError(422, 'transaction not found');
    return tx;
  }

  /** The spec's decoded form: who sent what, in which block, how deep. Token amounts in the token's units. */
  async decodedTransaction(network: Network, txid: string) {
    const adapter = this.adapter(network);
    const tx = await this.transaction(network, txid);
    const [info, head] = await Promise.all([
      adapter.getTransactionInfo(normalizeTxid(txid)),
      adapter.getBlockNumber(),
    ]);
    const transfer = decodeTransfer(tx);
    const blocknumber = info?.['blockNumber'] === undefined ? null : Number(info['blockNumber']);
    let amount: string | null = null;
    if (transfer.amount !== null) {
      if (transfer.type === 'Tron') amount = trxText(transfer.amount);
      else if (transfer.type === 'TRC20' && transfer.contractaddress) {
        const decimals = await adapter.getTrc20Decimals(transfer.contractaddress);
        amount = formatAmount(transfer.amount, decimals, { fixed: decimals });
      } else if (transfer.type === 'TRC10' && transfer.tokenid) {
        const { precision } = await trc10Info(adapter, transfer.tokenid);
        amount = formatAmount(transfer.amount, precision, { fixed: precision });
      } else amount = transfer.amount.toString();
    }
    return {
      transaction: {
        txid: normalizeTxid(txid),
        from: transfer.from,
        to: transfer.to,
        amount,
        contractaddress: transfer.contractaddress,
        tokenid: transfer.tokenid,
        blocknumber,
        confirmations: blocknumber === null ? 0 : Math.max(0, Number(head) - blocknumber + 1),
        status: contractStatus(tx),
        type: transfer.type,
      },
    };
  }

  /** The node's transaction info (fees, energy, logs); decoded: status and Transfer events readable. */
  async receipt(network: Network, txid: string, decoded: boolean) {
    const info = await this.adapter(network).getTransactionInfo(normalizeTxid(txid));
    if (info === null) throw new ApiError(422, 'transaction not found');
    if (!decoded) return { transaction: info };
    const receipt = (info['receipt'] ?? {}) as Record<string, unknown>;
    const sun = (value: unknown) => trxText(BigInt(String(value ?? 0)));
    return {
      txid: normalizeTxid(txid),
      status: info['result'] === 'FAILED' ? 'FAILED' : String(receipt['result'] ?? 'SUCCESS'),
      blocknumber: Number(info['blockNumber'] ?? 0),
      timestamp: new Date(Number(info['blockTimeStamp'] ?? 0)).toISOString(),
      fee: sun(info['fee']),
      energy_usage_total: String(receipt['energy_usage_total'] ?? 0),
      energy_fee: sun(receipt['energy_fee']),
      net_usage: String(receipt['net_usage'] ?? 0),
      net_fee: sun(receipt['net_fee']),
      contractaddress:
        typeof info['contract_address'] === 'string' ? toBase58Address(info['contract_address']) : null,
      transfers: decodeTransferLogs(info),
    };
  }

  async balance(network: Network, address: string) {
    const balance = await this.adapter(network).getBalance(address);
    return { tronaddress: toBase58Address(address), decimals: TRX_DECIMALS, balance: balance.toString() };
  }

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
}

function normalizeTxid(txid: string): string {
  return txid.replace(/^0x/i, '').toLowerCase();
}

/** SUCCESS, or the contract's failure (REVERT, OUT_OF_ENERGY ...) as the node reports it in `ret`. */
async function trc10Info(adapter: TronAdapter, tokenId: string) {
  const info = await adapter.getTrc10Info(tokenId);
  if (info === null) throw new ApiError(422, `TRC10 token ${tokenId} does not exist`);
  return info;
}
