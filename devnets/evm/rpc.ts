// Plain JSON-RPC to the devnet's own anvil (test infrastructure; the gateway talks through NodeClient).
import type { Hex } from 'viem';

export interface DevnetReceipt {
  transactionHash: Hex;
  status: Hex;
  contractAddress: Hex | null;
  logs: { address: Hex; topics: Hex[]; data: Hex }[];
}

export class DevnetRpc {
  #id = 1;

  constructor(readonly url: string) {}

  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: this.#id++, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
    return body.result as T;
  }

  /** Waits for the receipt (at once with auto-mining, a block later with interval mining). */
  async receipt(hash: Hex, timeoutMs = 60_000): Promise<DevnetReceipt> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const receipt = await this.call<DevnetReceipt | null>('eth_getTransactionReceipt', [hash]);
      if (receipt) {
        if (receipt.status !== '0x1') throw new Error(`devnet transaction ${hash} reverted`);
        return receipt;
      }
      if (Date.now() > deadline)
        throw new Error(`devnet transaction ${hash} not mined within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
