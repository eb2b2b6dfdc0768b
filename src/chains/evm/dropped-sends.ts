/**
 * What follows when the reconciler gives up a signed transaction no node will take any more: the send's
 * history entry, answered 201, is failed with the reason (the decoded lookups then say why the
 * transaction is not found), and the sender's own subscriptions on `from` hear a `dropped` notification.
 */
import type { Logger } from '../../logger.ts';
import type { DroppedSendNotices, SendHistory } from '../ports.ts';
import type { TransferEvent } from '../types.ts';
import type { EvmAdapter } from './adapter.ts';
import { erc20DecimalsOrNull, movedAsset, signedTransactionFields } from './moved-asset.ts';
import type { DroppedSend } from './nonce-manager.ts';

export class DroppedSends {
  constructor(
    private readonly history: SendHistory,
    private readonly notices: DroppedSendNotices | null,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(adapter: EvmAdapter, dropped: DroppedSend): Promise<void> {
    const { chain, network } = adapter;
    const failed = await this.history.markFailed(chain, network, dropped.txHash, dropped.reason);
    if (failed.length === 0) return;
    this.logger.warn({ chain, network, txid: dropped.txHash, nonce: dropped.nonce }, dropped.reason);
    if (this.notices === null) return;
    const transfer = await this.#transfer(adapter, dropped);
    if (transfer === null) return;
    for (const userId of new Set(failed.map((row) => row.userId))) {
      await this.notices.notify(userId, transfer, dropped.reason, this.now());
    }
  }

  /** The transfer the dropped transaction would have made, read from it as signed. */
  async #transfer(adapter: EvmAdapter, dropped: DroppedSend): Promise<TransferEvent | null> {
    const fields = await signedTransactionFields(dropped.rawTx);
    if (fields === null) return null;
    const moved = await movedAsset(adapter.chain, fields, erc20DecimalsOrNull(adapter));
    return {
      chain: adapter.chain,
      network: adapter.network,
      blockNumber: 0n,
      blockHash: '',
      txid: dropped.txHash,
      logIndex: 0,
      from: moved.from,
      to: moved.to,
      contractAddress: moved.contract,
      tokenId: moved.tokenId?.toString() ?? null,
      type: moved.type,
      amountRaw: moved.units,
      decimals: moved.decimals ?? 0,
      time: this.now(),
    };
  }
}
