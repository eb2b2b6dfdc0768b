/**
 * The BTC transfers of one transaction, for the webhook watchers: one per output paying an address.
 * Bitcoin moves coins from inputs to outputs with no "from" per output, so `from` is the address of the
 * first input's spent output (the sender as wallets show it), null for a coinbase. Change paid back to
 * a sender is reported too: the webhook matcher decides what a subscriber sees.
 */
import type { Network, TransferEvent } from '../types.ts';
import type { BitcoinTx } from './backend.ts';
import { BTC_DECIMALS } from './btc-amount.ts';

/** Where the transaction sits: a block's height, hash and time (unix seconds); 0, '' and now if unconfirmed. */
export interface TransferBlock {
  height: number;
  hash: string;
  time: number;
}

export function transfersOf(tx: BitcoinTx, block: TransferBlock, network: Network): TransferEvent[] {
  const first = tx.inputs[0];
  const from = first === undefined || first.coinbase ? null : comparable(first.prevout?.address ?? null);
  const time = new Date(block.time * 1000);
  return tx.outputs.flatMap((output) => {
    if (output.address === null || output.type === 'op_return') return [];
    return [
      {
        chain: 'bitcoin',
        network,
        blockNumber: BigInt(block.height),
        blockHash: block.hash,
        txid: tx.txid,
        logIndex: output.n,
        from,
        to: comparable(output.address),
        contractAddress: null,
        tokenId: null,
        type: 'BTC',
        amountRaw: output.value,
        decimals: BTC_DECIMALS,
        time,
      },
    ];
  });
}

/** The form webhooks compare addresses in: bech32 lower case (it is case-insensitive), base58 as is. */
function comparable(address: string | null): string | null {
  if (address === null) return null;
  return /^(bc|tb|bcrt)1/i.test(address) ? address.toLowerCase() : address;
}
