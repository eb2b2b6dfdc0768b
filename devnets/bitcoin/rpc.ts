// The Bitcoin Core JSON-RPC methods, over the same chain as the Esplora front. Amounts are BTC written
// with 8 places from bigint satoshis; errors carry Core's codes and texts.
import { outputScriptOf } from './address.ts';
import { type Block, blockBytes, blockSizes, difficulty, headerBytes, wtxidOf } from './block.ts';
import {
  type BitcoinChain,
  DEFAULT_MAX_FEERATE_SATS_PER_KVB,
  decodeTransaction,
  type MempoolEntry,
} from './chain.ts';
import { descriptorChecksum } from './descriptor.ts';
import {
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_INVALID_PARAMETER,
  RPC_METHOD_NOT_FOUND,
  RPC_MISC_ERROR,
  RPC_TRANSACTION_ALREADY_IN_CHAIN,
  RPC_TRANSACTION_ERROR,
  RPC_TYPE_ERROR,
  RpcError,
} from './errors.ts';
import { type FeeEstimates, smartFee } from './fees.ts';
import { Btc, CoreDouble, type Json, satsOfBtc } from './json.ts';
import { coreAsm, coreDescriptor, coreScriptPubKey } from './script.ts';
import { findTx, type TxView } from './tx-view.ts';

export interface RpcContext {
  chain: BitcoinChain;
  feeEstimates(): FeeEstimates;
  /** Accepts a raw transaction into the mempool (maxfeerate in sat/kvB, 0: any); throws RpcError. */
  submit(hex: string, maxFeeRate?: bigint): Promise<string>;
  /** Runs Core's checks without touching the mempool. */
  testAccept(hex: string): MempoolEntry;
  /** Mines blocks whose coinbases pay `script` (regtest's generatetoaddress); resolves to their hashes. */
  generate(blocks: number, script: Uint8Array): Promise<string[]>;
}

type Method = (ctx: RpcContext, params: unknown[]) => Json | Promise<Json>;

const NO_TX = 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.';
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function hashParam(v: unknown, name: string): string {
  if (typeof v !== 'string')
    throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${typeName(v)} is not of expected type string`);
  if (!/^[0-9a-fA-F]{64}$/.test(v)) {
    throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${v.length}, for '${v}')`);
  }
  return v.toLowerCase();
}

function intParam(v: unknown, fallback?: number): number {
  if (v === undefined || v === null) {
    if (fallback === undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Missing required parameter');
    return fallback;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${typeName(v)} is not of expected type number`);
  }
  return v;
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** maxfeerate in BTC/kvB (number or string) as sat/kvB; Core's 0.10 when absent. */
function maxFeeRateParam(v: unknown): bigint {
  if (v === undefined || v === null) return DEFAULT_MAX_FEERATE_SATS_PER_KVB;
  const sats = satsOfBtc(v);
  if (sats === null) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount');
  return sats;
}

function blockByHash(chain: BitcoinChain, v: unknown): { block: Block; best: boolean } {
  const found = chain.block(hashParam(v, 'blockhash'));
  if (!found) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return found;
}

function headerJson(chain: BitcoinChain, block: Block, best: boolean): Record<string, Json | undefined> {
  const next = best ? chain.blocks[block.height + 1] : undefined;
  return {
    hash: block.hash,
    confirmations: best ? chain.height - block.height + 1 : -1,
    height: block.height,
    version: block.version,
    versionHex: (block.version >>> 0).toString(16).padStart(8, '0'),
    merkleroot: block.merkleRoot,
    time: block.time,
    mediantime: best ? chain.medianTimePast(block.height) : block.time,
    nonce: block.nonce,
    bits: block.bits.toString(16).padStart(8, '0'),
    difficulty: CoreDouble.of(difficulty(block.bits)),
    chainwork: (best ? chain.chainWork(block.height) : 0n).toString(16).padStart(64, '0'),
    nTx: block.txs.length,
    previousblockhash: block.height === 0 ? undefined : block.prevHash,
    nextblockhash: next?.hash,
  };
}

/** Core's TxToUniv: `details` adds the fee, `prevouts` each input's spent output. */
export function coreTxJson(
  chain: BitcoinChain,
  view: TxView,
  details: boolean,
  prevouts: boolean,
): Record<string, Json | undefined> {
  const network = chain.params.encoding;
  const { tx } = view;
  const coinbase = tx.isCoinbase();
  return {
    txid: view.txid,
    hash: wtxidOf(tx),
    version: tx.version,
    size: tx.byteLength(true),
    vsize: tx.virtualSize(),
    weight: tx.weight(),
    locktime: tx.locktime,
    vin: tx.ins.map((input, i) => {
      const witness = input.witness.length > 0 ? input.witness.map(hex) : undefined;
      if (coinbase) return { coinbase: hex(input.script), txinwitness: witness, sequence: input.sequence };
      const prev = view.prevouts[i];
      return {
        txid: Buffer.from(input.hash).reverse().toString('hex'),
        vout: input.index,
        scriptSig: { asm: coreAsm(input.script, true), hex: hex(input.script) },
        txinwitness: witness,
        prevout:
          prevouts && prev
            ? {
                generated: prev.coinbase,
                height: prev.height ?? chain.height + 1,
                value: Btc.of(prev.value),
                scriptPubKey: coreScriptPubKey(prev.script, network),
              }
            : undefined,
        sequence: input.sequence,
      };
    }),
    vout: tx.outs.map((o, n) => ({
      value: Btc.of(o.value),
      n,
      scriptPubKey: coreScriptPubKey(o.script, network),
    })),
    fee: details && !coinbase ? Btc.of(view.fee) : undefined,
    hex: tx.toHex(),
  };
}

function mempoolEntryJson(chain: BitcoinChain, e: MempoolEntry): Json {
  const ancestors = new Set<string>();
  const queue = [e.txid];
  while (queue.length > 0) {
    const entry = chain.mempool.get(queue.pop() as string);
    if (!entry) continue;
    for (const p of chain.parents(entry)) {
      if (!ancestors.has(p)) {
        ancestors.add(p);
        queue.push(p);
      }
    }
  }
  const descendants = chain.descendants(e.txid);
  const sum = (ids: Iterable<string>, f: (m: MempoolEntry) => bigint) => {
    let total = 0n;
    for (const id of ids) {
      const m = chain.mempool.get(id);
      if (m) total += f(m);
    }
    return total;
  };
  const withSelf = [e.txid, ...ancestors];
  const spentby = [...chain.mempool.values()]
    .filter((m) => chain.parents(m).includes(e.txid))
    .map((m) => m.txid);
  return {
    vsize: e.vsize,
    weight: e.weight,
    time: e.time,
    height: e.height,
    descendantcount: descendants.size,
    descendantsize: Number(sum(descendants, (m) => BigInt(m.vsize))),
    ancestorcount: withSelf.length,
    ancestorsize: Number(sum(withSelf, (m) => BigInt(m.vsize))),
    wtxid: e.wtxid,
    fees: {
      base: Btc.of(e.fee),
      modified: Btc.of(e.fee),
      ancestor: Btc.of(sum(withSelf, (m) => m.fee)),
      descendant: Btc.of(sum(descendants, (m) => m.fee)),
    },
    depends: chain.parents(e),
    spentby,
    'bip125-replaceable': e.tx.ins.some((i) => i.sequence < 0xfffffffe),
    unbroadcast: false,
  };
}

function scanDescriptor(chain: BitcoinChain, item: unknown): Uint8Array {
  const desc =
    typeof item === 'string'
      ? item
      : typeof item === 'object' && item !== null && 'desc' in item
        ? item.desc
        : null;
  if (typeof desc !== 'string') throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid scan object');
  const [body, checksum] = desc.split('#') as [string, string | undefined];
  if (checksum !== undefined && checksum !== descriptorChecksum(body)) {
    throw new RpcError(
      RPC_INVALID_ADDRESS_OR_KEY,
      `Provided checksum '${checksum}' does not match computed checksum '${descriptorChecksum(body)}'`,
    );
  }
  const addr = /^addr\((.*)\)$/.exec(body);
  if (addr) {
    const script = outputScriptOf(addr[1] as string, chain.params.encoding);
    if (!script) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Address is not valid');
    return script;
  }
  const raw = /^raw\(([0-9a-fA-F]*)\)$/.exec(body);
  if (raw && (raw[1] as string).length % 2 === 0) return Buffer.from(raw[1] as string, 'hex');
  throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `'${body}' is not a valid descriptor function`);
}

const METHODS: Record<string, { params: string[]; run: Method }> = {
  getblockchaininfo: {
    params: [],
    run: ({ chain }) => ({
      chain: chain.params.chain,
      blocks: chain.height,
      headers: chain.height,
      bestblockhash: chain.tip.hash,
      bits: chain.tip.bits.toString(16).padStart(8, '0'),
      difficulty: CoreDouble.of(difficulty(chain.tip.bits)),
      time: chain.tip.time,
      mediantime: chain.medianTimePast(chain.height),
      verificationprogress: 1,
      initialblockdownload: false,
      chainwork: chain.chainWork(chain.height).toString(16).padStart(64, '0'),
      size_on_disk: chain.blocks.reduce((s, b) => s + blockSizes(b).size, 0),
      pruned: false,
      warnings: [],
    }),
  },
  getnetworkinfo: {
    params: [],
    run: () => ({
      version: 280000,
      subversion: '/Satoshi:28.0.0/',
      protocolversion: 70016,
      localrelay: true,
      networkactive: true,
      connections: 0,
      relayfee: Btc.of(1000n),
      incrementalfee: Btc.of(1000n),
      warnings: [],
    }),
  },
  getblockcount: { params: [], run: ({ chain }) => chain.height },
  getbestblockhash: { params: [], run: ({ chain }) => chain.tip.hash },
  getblockhash: {
    params: ['height'],
    run: ({ chain }, [h]) => {
      const height = intParam(h);
      const block = chain.blocks[height];
      if (height < 0 || !block) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
      return block.hash;
    },
  },
  getblockheader: {
    params: ['blockhash', 'verbose'],
    run: ({ chain }, [hash, verbose]) => {
      const { block, best } = blockByHash(chain, hash);
      if (verbose === false) return headerBytes(block).toString('hex');
      return headerJson(chain, block, best);
    },
  },
  getblock: {
    params: ['blockhash', 'verbosity'],
    run: ({ chain }, [hash, v]) => {
      const { block, best } = blockByHash(chain, hash);
      const verbosity = v === true ? 1 : v === false ? 0 : intParam(v, 1);
      if (verbosity <= 0) return blockBytes(block).toString('hex');
      const sizes = blockSizes(block);
      const txs = block.txs.map((tx) => {
        if (verbosity === 1) return tx.getId();
        const txid = tx.getId();
        const view = (best ? findTx(chain, txid) : null) ?? {
          tx,
          txid,
          prevouts: [],
          fee: 0n,
          block,
          time: null,
        };
        return coreTxJson(chain, view, best, verbosity >= 3 && best);
      });
      return {
        ...headerJson(chain, block, best),
        strippedsize: sizes.strippedSize,
        size: sizes.size,
        weight: sizes.weight,
        tx: txs,
      };
    },
  },
  getrawtransaction: {
    params: ['txid', 'verbose', 'blockhash'],
    run: ({ chain }, [txid, verbose, blockhash]) => {
      const id = hashParam(txid, 'parameter 1');
      const verbosity =
        verbose === true
          ? 1
          : verbose === false || verbose === undefined || verbose === null
            ? 0
            : intParam(verbose);
      if (chain.blocks[0]?.txs[0]?.getId() === id) {
        throw new RpcError(
          RPC_INVALID_ADDRESS_OR_KEY,
          'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved',
        );
      }
      const view = findTx(chain, id);
      if (
        !view ||
        (blockhash !== undefined &&
          blockhash !== null &&
          view.block?.hash !== hashParam(blockhash, 'parameter 3'))
      ) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, NO_TX);
      }
      if (verbosity <= 0) return view.tx.toHex();
      const out = coreTxJson(chain, view, verbosity >= 2, verbosity >= 2);
      if (!view.block) return out;
      return {
        ...(blockhash !== undefined && blockhash !== null ? { in_active_chain: true } : {}),
        ...out,
        blockhash: view.block.hash,
        confirmations: chain.height - view.block.height + 1,
        time: view.block.time,
        blocktime: view.block.time,
      };
    },
  },
  sendrawtransaction: {
    params: ['hexstring', 'maxfeerate'],
    run: async (ctx, [raw, maxfeerate]) => {
      if (typeof raw !== 'string')
        throw new RpcError(RPC_TYPE_ERROR, 'JSON value of type null is not of expected type string');
      return ctx.submit(raw, maxFeeRateParam(maxfeerate));
    },
  },
  testmempoolaccept: {
    params: ['rawtxs', 'maxfeerate'],
    run: (ctx, [rawtxs, maxfeerate]) => {
      if (!Array.isArray(rawtxs))
        throw new RpcError(RPC_TYPE_ERROR, 'JSON value is not an array as expected');
      const maxPerKvB = maxFeeRateParam(maxfeerate);
      return rawtxs.map((raw): Json => {
        const tx = decodeTransaction(String(raw));
        const ids = { txid: tx.getId(), wtxid: wtxidOf(tx) };
        try {
          const entry = ctx.testAccept(String(raw));
          if (maxPerKvB > 0n && entry.fee * 1000n > maxPerKvB * BigInt(entry.vsize)) {
            return { ...ids, allowed: false, 'reject-reason': 'max-fee-exceeded' };
          }
          return {
            ...ids,
            allowed: true,
            vsize: entry.vsize,
            fees: {
              base: Btc.of(entry.fee),
              'effective-feerate': Btc.of((entry.fee * 1000n) / BigInt(entry.vsize)),
              'effective-includes': [ids.wtxid],
            },
          };
        } catch (err) {
          if (!(err instanceof RpcError)) throw err;
          const reason =
            err.code === RPC_TRANSACTION_ERROR
              ? 'missing-inputs'
              : err.code === RPC_TRANSACTION_ALREADY_IN_CHAIN
                ? 'txn-already-known'
                : (err.message.split(', ')[0] as string);
          return { ...ids, allowed: false, 'reject-reason': reason };
        }
      });
    },
  },
  generatetoaddress: {
    params: ['nblocks', 'address', 'maxtries'],
    run: (ctx, [n, address]) => {
      const blocks = intParam(n);
      const script = typeof address === 'string' ? outputScriptOf(address, ctx.chain.params.encoding) : null;
      if (!script) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Error: Invalid address');
      if (blocks < 0 || blocks > 1000)
        throw new RpcError(RPC_INVALID_PARAMETER, 'nblocks must be 0 to 1000 here');
      return ctx.generate(blocks, script);
    },
  },
  estimatesmartfee: {
    params: ['conf_target', 'estimate_mode'],
    run: (ctx, [target]) => {
      const blocks = intParam(target);
      if (blocks < 1 || blocks > 1008)
        throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid conf_target, must be between 1 and 1008');
      return smartFee(ctx.feeEstimates(), blocks);
    },
  },
  scantxoutset: {
    params: ['action', 'scanobjects'],
    run: ({ chain }, [action, objects]) => {
      if (action === 'status') return null;
      if (action === 'abort') return false;
      if (action !== 'start') throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid action argument');
      if (!Array.isArray(objects))
        throw new RpcError(RPC_MISC_ERROR, 'scanobjects argument is required for the start action');
      const scripts = objects.map((o) => scanDescriptor(chain, o));
      const unspents: Json[] = [];
      let total = 0n;
      for (const script of scripts) {
        for (const coin of chain.unspentOf(script)) {
          total += coin.value;
          unspents.push({
            txid: coin.txid,
            vout: coin.vout,
            scriptPubKey: hex(coin.script),
            desc: coreDescriptor(coin.script, chain.params.encoding),
            amount: Btc.of(coin.value),
            coinbase: coin.coinbase,
            height: coin.height ?? 0,
            blockhash: chain.blocks[coin.height ?? 0]?.hash,
            confirmations: chain.height - (coin.height ?? 0) + 1,
          });
        }
      }
      return {
        success: true,
        txouts: chain.utxoCount,
        height: chain.height,
        bestblock: chain.tip.hash,
        unspents,
        total_amount: Btc.of(total),
      };
    },
  },
  getrawmempool: {
    params: ['verbose', 'mempool_sequence'],
    run: ({ chain }, [verbose]) => {
      if (verbose !== true) return [...chain.mempool.keys()];
      const out: Record<string, Json> = {};
      for (const e of chain.mempool.values()) out[e.txid] = mempoolEntryJson(chain, e);
      return out;
    },
  },
  getmempoolentry: {
    params: ['txid'],
    run: ({ chain }, [txid]) => {
      const e = chain.mempool.get(hashParam(txid, 'parameter 1'));
      if (!e) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
      return mempoolEntryJson(chain, e);
    },
  },
  getmempoolinfo: {
    params: [],
    run: ({ chain }) => {
      const entries = [...chain.mempool.values()];
      return {
        loaded: true,
        size: entries.length,
        bytes: entries.reduce((s, e) => s + e.vsize, 0),
        usage: entries.reduce((s, e) => s + e.weight, 0),
        total_fee: Btc.of(entries.reduce((s, e) => s + e.fee, 0n)),
        maxmempool: 300_000_000,
        mempoolminfee: Btc.of(1000n),
        minrelaytxfee: Btc.of(1000n),
        incrementalrelayfee: Btc.of(1000n),
        unbroadcastcount: 0,
        fullrbf: false,
      };
    },
  },
  gettxout: {
    params: ['txid', 'n', 'include_mempool'],
    run: ({ chain }, [txid, n, includeMempool]) => {
      const id = hashParam(txid, 'parameter 1');
      const vout = intParam(n);
      const withMempool = includeMempool !== false;
      const network = chain.params.encoding;
      const coin = chain.utxo(id, vout);
      if (coin) {
        if (withMempool && chain.spender(id, vout)) return null;
        return {
          bestblock: chain.tip.hash,
          confirmations: chain.height - (coin.height ?? 0) + 1,
          value: Btc.of(coin.value),
          scriptPubKey: coreScriptPubKey(coin.script, network),
          coinbase: coin.coinbase,
        };
      }
      if (!withMempool) return null;
      for (const c of chain.mempoolCoins()) {
        if (c.txid === id && c.vout === vout) {
          return {
            bestblock: chain.tip.hash,
            confirmations: 0,
            value: Btc.of(c.value),
            scriptPubKey: coreScriptPubKey(c.script, network),
            coinbase: false,
          };
        }
      }
      return null;
    },
  },
};

/** Runs one call; positional or named parameters. */
export async function callRpc(ctx: RpcContext, method: string, params: unknown): Promise<Json> {
  const spec = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  if (!spec) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
  let list: unknown[];
  if (params === undefined || params === null) list = [];
  else if (Array.isArray(params)) list = params;
  else if (typeof params === 'object') {
    const named = params as Record<string, unknown>;
    for (const key of Object.keys(named)) {
      if (!spec.params.includes(key))
        throw new RpcError(RPC_INVALID_PARAMETER, `Unknown named parameter ${key}`);
    }
    list = spec.params.map((name) => named[name]);
  } else throw new RpcError(-32600, 'Params must be an array or object');
  if (list.length > spec.params.length) {
    throw new RpcError(RPC_MISC_ERROR, `${method} takes at most ${spec.params.length} arguments`);
  }
  return spec.run(ctx, list);
}
