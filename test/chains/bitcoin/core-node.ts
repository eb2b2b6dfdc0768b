/**
 * Bitcoin Core JSON-RPC answers for tests, in the shapes Core's RPC help documents (getblock verbosity
 * 3, getrawtransaction verbosity 2, scantxoutset, estimatesmartfee), served by a local HTTP server:
 * errors as HTTP 500 with `{result: null, error: {code, message}, id}`, as Core sends them.
 */
import { type Hit, type NodeServer, type Reply, startNodeServer } from './node-server.ts';

/** A BTC amount written as Core writes it: a bare JSON decimal, never a string. */
export const btcAmount = (literal: string): string => `#${literal}`;

/** JSON text in which every `btcAmount` is a bare number literal, exactly as written. */
export function coreJson(value: unknown): string {
  return JSON.stringify(value).replace(/"#([-0-9.e]+)"/g, '$1');
}

export class RpcFailure {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

export type RpcHandler = (call: RpcCall) => unknown;

export async function startCoreNode(handler: RpcHandler): Promise<NodeServer & { calls: RpcCall[] }> {
  const calls: RpcCall[] = [];
  const server = await startNodeServer((hit: Hit): Reply => {
    const request = JSON.parse(hit.body) as {
      jsonrpc: string;
      id: number;
      method: string;
      params: unknown[];
    };
    calls.push({ method: request.method, params: request.params });
    let result: unknown;
    try {
      result = handler({ method: request.method, params: request.params });
    } catch (error) {
      if (!(error instanceof RpcFailure)) throw error;
      const status = error.code === -32601 ? 404 : 500;
      return {
        status,
        body: coreJson({ result: null, error: { code: error.code, message: error.message }, id: request.id }),
      };
    }
    if (result === undefined) {
      return {
        status: 404,
        body: coreJson({
          result: null,
          error: { code: -32601, message: 'Method not found' },
          id: request.id,
        }),
      };
    }
    return { body: coreJson({ result, error: null, id: request.id }) };
  });
  return Object.assign(server, { calls });
}

export const ADDR_A = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
export const ADDR_B = 'bcrt1qcr8te4kr609gcawutmrza0j4xv80jy8zeqchgx';
const SCRIPT_A = '0014751e76e8199196d454941c45d1b3a323f1433bd6';
const SCRIPT_B = '0014c0cebcd6c3d3ca8c75dc5ec62ebe55330ef910e2';

export const spk = (address: string | null, hex: string, type: string) =>
  address === null
    ? { asm: '', desc: `raw(${hex})`, hex, type }
    : { asm: '', desc: `addr(${address})`, hex, address, type };

export const SPK_A = spk(ADDR_A, SCRIPT_A, 'witness_v0_keyhash');
export const SPK_B = spk(ADDR_B, SCRIPT_B, 'witness_v0_keyhash');

export const txid = (n: number): string => n.toString(16).padStart(64, '0');

/** A coinbase paying ADDR_A (an amount near the whole supply). */
export function coinbaseTx(id: string) {
  return {
    txid: id,
    hash: id,
    version: 2,
    size: 168,
    vsize: 141,
    weight: 564,
    locktime: 0,
    vin: [{ coinbase: '016500', txinwitness: ['00'.repeat(32)], sequence: 4294967295 }],
    vout: [{ value: btcAmount('20999999.97690000'), n: 0, scriptPubKey: SPK_A }],
  };
}

/** Spends `spent` (0.5 BTC of ADDR_A): 0.1 to ADDR_B, 0.3999 back to ADDR_A, an OP_RETURN; fee 0.0001. */
export function paymentTx(id: string, spent: { txid: string; vout: number }) {
  return {
    txid: id,
    hash: id,
    version: 2,
    size: 222,
    vsize: 141,
    weight: 561,
    locktime: 0,
    vin: [
      {
        txid: spent.txid,
        vout: spent.vout,
        scriptSig: { asm: '', hex: '' },
        txinwitness: ['30', '02'],
        prevout: { generated: false, height: 100, value: btcAmount('0.50000000'), scriptPubKey: SPK_A },
        sequence: 4294967293,
      },
    ],
    vout: [
      { value: btcAmount('0.10000000'), n: 0, scriptPubKey: SPK_B },
      { value: btcAmount('0.39990000'), n: 1, scriptPubKey: SPK_A },
      { value: btcAmount('0.00000000'), n: 2, scriptPubKey: spk(null, '6a0568656c6c6f', 'nulldata') },
    ],
    fee: btcAmount('0.00010000'),
    hex: '02000000000101',
  };
}

export const BLOCK_HASH = 'ab'.repeat(32);
export const PARENT_HASH = 'cd'.repeat(32);

export function block(tx: unknown[]) {
  return {
    hash: BLOCK_HASH,
    confirmations: 1,
    height: 101,
    version: 536870912,
    versionHex: '20000000',
    merkleroot: 'ef'.repeat(32),
    time: 1700000000,
    mediantime: 1699999000,
    nonce: 3,
    bits: '207fffff',
    difficulty: btcAmount('4.656542373906925e-10'),
    chainwork: '00'.repeat(32),
    nTx: tx.length,
    previousblockhash: PARENT_HASH,
    strippedsize: 300,
    size: 400,
    weight: 1300,
    tx,
  };
}
