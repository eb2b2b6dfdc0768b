// The Esplora REST front (Blockstream electrs / mempool.space): JSON shapes, plain-text answers and the
// error texts and statuses of electrs' rest.rs.
import { outputScriptOf } from './address.ts';
import { type Block, blockBytes, blockSizes, difficulty, headerBytes } from './block.ts';
import type { BitcoinChain } from './chain.ts';
import { RpcError } from './errors.ts';
import { type FeeEstimates, recommendedFees } from './fees.ts';
import type { Json } from './json.ts';
import { ALL_ENCODINGS } from './networks.ts';
import { addressOf, esploraAsm, scriptKind } from './script.ts';
import { findTx, type TxView } from './tx-view.ts';

export interface EsploraContext {
  chain: BitcoinChain;
  feeEstimates(): FeeEstimates;
  /** Accepts a raw transaction into the mempool (electrs: Core's default maxfeerate); throws RpcError. */
  submit(hex: string): Promise<string>;
}

export type Reply =
  | { status: number; type: 'text'; body: string }
  | { status: number; type: 'json'; body: Json }
  | { status: number; type: 'binary'; body: Buffer };

const text = (body: string, status = 200): Reply => ({ status, type: 'text', body });
const json = (body: Json): Reply => ({ status: 200, type: 'json', body });
const TX_NOT_FOUND = text('Transaction not found', 404);
const BLOCK_NOT_FOUND = text('Block not found', 404);
const HASH = /^[0-9a-f]{64}$/;
const PAGE = 25;
const MEMPOOL_PAGE = 50;

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export function blockJson(chain: BitcoinChain, block: Block): Json {
  const sizes = blockSizes(block);
  return {
    id: block.hash,
    height: block.height,
    version: block.version,
    timestamp: block.time,
    tx_count: block.txs.length,
    size: sizes.size,
    weight: sizes.weight,
    merkle_root: block.merkleRoot,
    previousblockhash: block.height === 0 ? null : block.prevHash,
    mediantime: chain.medianTimePast(block.height),
    nonce: block.nonce,
    bits: block.bits,
    difficulty: difficulty(block.bits),
  };
}

const statusJson = (block: Block | null): Json =>
  block
    ? { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time }
    : { confirmed: false };

export function txJson(chain: BitcoinChain, view: TxView): Json {
  const network = chain.params.encoding;
  const outJson = (script: Uint8Array, value: bigint): Json => ({
    scriptpubkey: hex(script),
    scriptpubkey_asm: esploraAsm(script),
    scriptpubkey_type: scriptKind(script) === 'p2pk' ? 'p2pk' : scriptKind(script),
    scriptpubkey_address: addressOf(script, network) ?? undefined,
    value,
  });
  const coinbase = view.tx.isCoinbase();
  return {
    txid: view.txid,
    version: view.tx.version,
    locktime: view.tx.locktime,
    vin: view.tx.ins.map((input, i) => {
      const prev = view.prevouts[i];
      return {
        txid: Buffer.from(input.hash).reverse().toString('hex'),
        vout: input.index,
        prevout: coinbase || !prev ? null : outJson(prev.script, prev.value),
        scriptsig: hex(input.script),
        scriptsig_asm: esploraAsm(input.script),
        witness: input.witness.length > 0 ? input.witness.map(hex) : undefined,
        is_coinbase: coinbase,
        sequence: input.sequence,
      };
    }),
    vout: view.tx.outs.map((o) => outJson(o.script, o.value)),
    size: view.tx.byteLength(true),
    weight: view.tx.weight(),
    fee: view.fee,
    status: statusJson(view.block),
  };
}

function outspendJson(chain: BitcoinChain, txid: string, vout: number): Json {
  const spend = chain.spender(txid, vout);
  if (!spend) return { spent: false };
  const by = findTx(chain, spend.txid);
  return { spent: true, txid: spend.txid, vin: spend.vin, status: statusJson(by?.block ?? null) };
}

type AddressResult = { script: Uint8Array } | { error: Reply };

function parseAddress(chain: BitcoinChain, address: string): AddressResult {
  const script = outputScriptOf(address, chain.params.encoding);
  if (script) return { script };
  if (ALL_ENCODINGS.some((other) => outputScriptOf(address, other))) {
    return { error: text('Address on invalid network', 400) };
  }
  return { error: text('Invalid Bitcoin address', 400) };
}

const sameScript = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** The mempool transactions touching a script, newest first. */
function mempoolTxsOf(chain: BitcoinChain, script: Uint8Array) {
  return [...chain.mempool.values()]
    .filter(
      (e) =>
        e.tx.outs.some((o) => sameScript(o.script, script)) ||
        e.prevouts.some((p) => sameScript(p.script, script)),
    )
    .reverse();
}

function statsOf(views: TxView[], script: Uint8Array): Json {
  let funded = 0;
  let fundedSum = 0n;
  let spent = 0;
  let spentSum = 0n;
  for (const v of views) {
    for (const o of v.tx.outs) {
      if (!sameScript(o.script, script)) continue;
      funded++;
      fundedSum += o.value;
    }
    for (const p of v.prevouts) {
      if (!sameScript(p.script, script)) continue;
      spent++;
      spentSum += p.value;
    }
  }
  return {
    funded_txo_count: funded,
    funded_txo_sum: fundedSum,
    spent_txo_count: spent,
    spent_txo_sum: spentSum,
    tx_count: views.length,
  };
}

function chainViews(chain: BitcoinChain, script: Uint8Array): TxView[] {
  return chain
    .scriptHistory(script)
    .map((txid) => findTx(chain, txid) as TxView)
    .reverse();
}

export async function esploraRoute(
  ctx: EsploraContext,
  method: string,
  path: string,
  body: string,
): Promise<Reply> {
  const { chain } = ctx;
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] === 'api' && parts.length > 1) parts.shift();
  const [a, b, c, d] = parts;
  if (method === 'POST') {
    if (a === 'tx' && parts.length === 1) {
      try {
        return text(await ctx.submit(body.trim()));
      } catch (err) {
        if (err instanceof RpcError) {
          return text(
            `sendrawtransaction RPC error: ${JSON.stringify({ code: err.code, message: err.message })}`,
            400,
          );
        }
        throw err;
      }
    }
    return text('Not Found', 404);
  }
  if (method !== 'GET') return text('Method Not Allowed', 405);

  if (a === 'blocks') {
    if (b === 'tip' && c === 'height' && parts.length === 3) return text(String(chain.height));
    if (b === 'tip' && c === 'hash' && parts.length === 3) return text(chain.tip.hash);
    if (parts.length <= 2) {
      const start = b === undefined ? chain.height : Number(b);
      if (!Number.isSafeInteger(start) || start < 0) return text('Invalid start height', 400);
      const out: Json[] = [];
      for (let h = Math.min(start, chain.height); h >= 0 && out.length < 10; h--) {
        out.push(blockJson(chain, chain.blocks[h] as Block));
      }
      return json(out);
    }
  }
  if (a === 'block-height' && b !== undefined && parts.length === 2) {
    const h = Number(b);
    const block = /^\d+$/.test(b) ? chain.blocks[h] : undefined;
    return block ? text(block.hash) : BLOCK_NOT_FOUND;
  }
  if (a === 'block' && b !== undefined) {
    const found = HASH.test(b) ? chain.block(b) : null;
    if (!found) return BLOCK_NOT_FOUND;
    const { block, best } = found;
    if (parts.length === 2) return json(blockJson(chain, block));
    if (c === 'status' && parts.length === 3) {
      if (!best) return json({ in_best_chain: false });
      const next = chain.blocks[block.height + 1];
      return json({ in_best_chain: true, height: block.height, next_best: next ? next.hash : null });
    }
    if (c === 'header' && parts.length === 3) return text(headerBytes(block).toString('hex'));
    if (c === 'raw' && parts.length === 3) return { status: 200, type: 'binary', body: blockBytes(block) };
    if (c === 'txids' && parts.length === 3) return json(block.txs.map((t) => t.getId()));
    if (c === 'txid' && d !== undefined && parts.length === 4) {
      const tx = /^\d+$/.test(d) ? block.txs[Number(d)] : undefined;
      return tx ? text(tx.getId()) : TX_NOT_FOUND;
    }
    if (c === 'txs' && parts.length <= 4) {
      const start = d === undefined ? 0 : Number(d);
      if (!/^\d*$/.test(d ?? '') || start % PAGE !== 0)
        return text('start index must be a multipication of 25', 400);
      if (start >= block.txs.length) return text('start index out of range', 400);
      return json(
        block.txs.slice(start, start + PAGE).map((tx) => {
          const txid = tx.getId();
          const view = best ? findTx(chain, txid) : null;
          return txJson(chain, view ?? { tx, txid, prevouts: [], fee: 0n, block, time: null });
        }),
      );
    }
  }
  if (a === 'tx' && b !== undefined) {
    const view = HASH.test(b) ? findTx(chain, b) : null;
    if (!view) return TX_NOT_FOUND;
    if (parts.length === 2) return json(txJson(chain, view));
    if (c === 'status' && parts.length === 3) return json(statusJson(view.block));
    if (c === 'hex' && parts.length === 3) return text(view.tx.toHex());
    if (c === 'raw' && parts.length === 3)
      return { status: 200, type: 'binary', body: Buffer.from(view.tx.toBuffer()) };
    if (c === 'outspend' && d !== undefined && parts.length === 4) {
      const vout = /^\d+$/.test(d) ? Number(d) : -1;
      if (vout < 0 || vout >= view.tx.outs.length) return text('Transaction output not found', 404);
      return json(outspendJson(chain, view.txid, vout));
    }
    if (c === 'outspends' && parts.length === 3) {
      return json(view.tx.outs.map((_, vout) => outspendJson(chain, view.txid, vout)));
    }
  }
  if (a === 'address' && b !== undefined) {
    const parsed = parseAddress(chain, b);
    if ('error' in parsed) return parsed.error;
    const { script } = parsed;
    if (parts.length === 2) {
      const pending = mempoolTxsOf(chain, script).map((e) => findTx(chain, e.txid) as TxView);
      return json({
        address: b,
        chain_stats: statsOf(chainViews(chain, script), script),
        mempool_stats: statsOf(pending, script),
      });
    }
    if (c === 'utxo' && parts.length === 3) {
      const out: Json[] = [];
      for (const coin of chain.unspentOf(script)) {
        if (chain.spender(coin.txid, coin.vout)) continue;
        const block = chain.blocks[coin.height ?? -1] ?? null;
        out.push({ txid: coin.txid, vout: coin.vout, status: statusJson(block), value: coin.value });
      }
      for (const coin of chain.mempoolCoins()) {
        if (sameScript(coin.script, script))
          out.push({ txid: coin.txid, vout: coin.vout, status: { confirmed: false }, value: coin.value });
      }
      return json(out);
    }
    if (c === 'txs') {
      const mempoolJson = () =>
        mempoolTxsOf(chain, script)
          .slice(0, MEMPOOL_PAGE)
          .map((e) => txJson(chain, findTx(chain, e.txid) as TxView));
      const confirmed = chainViews(chain, script);
      if (parts.length === 3)
        return json([...mempoolJson(), ...confirmed.slice(0, PAGE).map((v) => txJson(chain, v))]);
      if (d === 'mempool' && parts.length === 4) return json(mempoolJson());
      if (d === 'chain' && parts.length <= 5) {
        const last = parts[4];
        let from = 0;
        if (last !== undefined) {
          const at = confirmed.findIndex((v) => v.txid === last);
          if (at < 0) return json([]);
          from = at + 1;
        }
        return json(confirmed.slice(from, from + PAGE).map((v) => txJson(chain, v)));
      }
    }
  }
  if (a === 'fee-estimates' && parts.length === 1) return json(ctx.feeEstimates());
  if (a === 'v1' && b === 'fees' && c === 'recommended' && parts.length === 3) {
    return json(recommendedFees(ctx.feeEstimates()));
  }
  if (a === 'mempool') {
    const entries = [...chain.mempool.values()];
    if (parts.length === 1) {
      const byRate = new Map<number, number>();
      for (const e of entries) {
        const rate = Math.round((Number(e.fee) / e.vsize) * 100) / 100;
        byRate.set(rate, (byRate.get(rate) ?? 0) + e.vsize);
      }
      return json({
        count: entries.length,
        vsize: entries.reduce((s, e) => s + e.vsize, 0),
        total_fee: entries.reduce((s, e) => s + e.fee, 0n),
        fee_histogram: [...byRate.entries()].sort((x, y) => y[0] - x[0]),
      });
    }
    if (b === 'txids' && parts.length === 2) return json(entries.map((e) => e.txid));
    if (b === 'recent' && parts.length === 2) {
      return json(
        entries
          .slice(-10)
          .reverse()
          .map((e) => ({
            txid: e.txid,
            fee: e.fee,
            vsize: e.vsize,
            value: e.tx.outs.reduce((s, o) => s + o.value, 0n),
          })),
      );
    }
  }
  return text('Not Found', 404);
}
