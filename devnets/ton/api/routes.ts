// The toncenter v3 endpoints the devnet serves, over its chain and emulator.
import { Cell, loadMessage, type Message } from '@ton/core';
import { blockJson, type JsonObject, transactionJson } from '../api-json.ts';
import { accountOf, MASTERCHAIN, type StoredTx } from '../chain.ts';
import { normalizedExternalHash, rawAddress } from '../messages.ts';
import { accountView, addressBook, bocOrNull, isWalletCode } from './accounts.ts';
import type { ApiContext, Route } from './context.ts';
import { ApiError, unprocessable } from './errors.ts';
import { estimateFee, trialRun } from './fees.ts';
import { runGetMethod } from './get-methods.ts';
import { addressParam, hashParam, intParam, page, requestFields } from './params.ts';

export type { ApiContext, Route } from './context.ts';

const byLt = (a: StoredTx, b: StoredTx) => (a.tx.lt < b.tx.lt ? -1 : a.tx.lt > b.tx.lt ? 1 : 0);

function txList(ctx: ApiContext, txs: StoredTx[]): JsonObject {
  return {
    transactions: txs.map((t) => transactionJson(t, accountOf(t.tx))),
    address_book: addressBook(ctx, txs),
  };
}

export function apiRoutes(ctx: ApiContext): Map<string, Route> {
  const { chain } = ctx;
  const mcBlock = (seqno: number) => {
    const block = chain.block(seqno);
    return block && blockJson(block, MASTERCHAIN, ctx.globalId, chain.block(seqno - 1));
  };
  const routes = new Map<string, Route>();
  const get = (path: string, route: Route) => routes.set(`GET /api/v3/${path}`, route);
  const post = (path: string, route: Route) => routes.set(`POST /api/v3/${path}`, route);

  get('masterchainInfo', async () => ({
    last: mcBlock(chain.head.seqno) ?? null,
    first: mcBlock(chain.blocks[0]?.seqno ?? 0) ?? null,
  }));

  get('blocks', async (query) => {
    const workchainText = query.get('workchain');
    const workchain = workchainText === null ? null : intParam(query, 'workchain', 0, -1, 0);
    const shard = query.get('shard');
    if (shard !== null && shard.toLowerCase() !== '8000000000000000') return { blocks: [] };
    const seqnoText = query.get('seqno') ?? query.get('mc_seqno');
    const seqno = seqnoText === null ? null : intParam(query, query.has('seqno') ? 'seqno' : 'mc_seqno', 0);
    const picked = seqno === null ? chain.blocks : [chain.block(seqno)].flatMap((b) => b ?? []);
    const rows = picked.flatMap((b) =>
      [MASTERCHAIN, 0].filter((wc) => workchain === null || wc === workchain).map((wc) => ({ block: b, wc })),
    );
    const ordered = page(rows, query, (a, b) => a.block.seqno - b.block.seqno || a.wc - b.wc);
    return {
      blocks: ordered.map(({ block, wc }) =>
        blockJson(block, wc, ctx.globalId, chain.block(block.seqno - 1)),
      ),
    };
  });

  get('transactionsByMasterchainBlock', async (query) => {
    // As the indexer reads it: a missing seqno is block 0.
    const seqno = intParam(query, 'seqno', 0);
    const block = chain.block(seqno);
    const txs = (block?.txs ?? []).flatMap((h) => chain.tx(h) ?? []);
    return txList(ctx, page(txs, query, byLt));
  });

  get('transactions', async (query) => {
    const hashText = query.get('hash');
    const accountText = query.get('account');
    let txs: StoredTx[];
    if (hashText !== null) {
      const hash = hashParam(hashText);
      if (!hash) throw unprocessable(`failed to parse hash: ${hashText}`);
      txs = [chain.tx(hash)].flatMap((t) => t ?? []);
    } else if (accountText !== null) {
      txs = chain.txsOfAccount(rawAddress(addressParam(accountText, 'account is required')));
    } else {
      txs = chain.allTxs();
    }
    const lt = query.get('lt');
    if (lt !== null) txs = txs.filter((t) => t.tx.lt.toString() === lt);
    return txList(ctx, page(txs, query, byLt));
  });

  get('transactionsByMessage', async (query) => {
    const text = query.get('msg_hash') ?? query.get('body_hash');
    if (text === null) throw unprocessable('msg_hash is required');
    const hash = hashParam(text);
    if (!hash) throw unprocessable(`failed to parse msg_hash: ${text}`);
    const direction = query.get('direction');
    if (direction !== null && direction !== 'in' && direction !== 'out') {
      throw unprocessable(`wrong value for direction parameter: ${direction}`);
    }
    return txList(ctx, page(chain.txsByMessage(hash, direction), query, byLt));
  });

  get('account', async (query) => {
    const view = accountView(ctx, addressParam(query.get('address'), 'address of account is required'));
    if (view.status === 'nonexist') throw new ApiError(404, 'account not found');
    return {
      balance: view.balance.toString(),
      extra_currencies: {},
      code: bocOrNull(view.code),
      data: bocOrNull(view.data),
      last_transaction_lt: view.lastLt.toString(),
      last_transaction_hash: view.lastHash,
      frozen_hash: view.frozenHash,
      status: view.status,
    };
  });

  get('addressInformation', async (query) => {
    const view = accountView(ctx, addressParam(query.get('address'), 'address of account is required'));
    return {
      balance: view.balance.toString(),
      code: bocOrNull(view.code),
      data: bocOrNull(view.data),
      last_transaction_lt: view.lastLt.toString(),
      last_transaction_hash: view.lastHash,
      frozen_hash: view.frozenHash,
      status: view.status === 'nonexist' ? 'uninit' : view.status,
    };
  });

  get('walletInformation', async (query) => {
    const address = addressParam(query.get('address'), 'address of account is required');
    const view = accountView(ctx, address);
    const common = {
      balance: view.balance.toString(),
      last_transaction_lt: view.lastLt.toString(),
      last_transaction_hash: view.lastHash,
    };
    if (view.status !== 'active') {
      return { ...common, status: view.status === 'nonexist' ? 'uninit' : view.status };
    }
    if (!isWalletCode(view.code) || !view.data) throw new ApiError(409, 'not a wallet');
    // V5R1 data: is_signature_allowed:1 seqno:32 wallet_id:32 public_key:256 extensions:dict
    const data = view.data.beginParse();
    data.loadBit();
    const seqno = data.loadUint(32);
    const walletId = data.loadInt(32);
    return { ...common, wallet_type: 'wallet v5 r1', seqno, wallet_id: walletId, status: 'active' };
  });

  post('runGetMethod', (_query, body) => runGetMethod(ctx, body));
  post('estimateFee', (_query, body) => estimateFee(ctx, body));

  post('message', async (_query, body) => {
    const boc = requestFields(body)['boc'];
    if (boc === undefined || boc === null || boc === '') throw new ApiError(401, 'boc is required');
    if (typeof boc !== 'string') throw unprocessable('boc must be a base64 string');
    let message: Message;
    let cell: Cell;
    try {
      cell = Cell.fromBase64(boc);
      message = loadMessage(cell.beginParse());
    } catch {
      throw unprocessable('failed to parse boc: not a serialized message');
    }
    if (message.info.type !== 'external-in')
      throw unprocessable('failed to parse boc: not an external message');
    const norm = normalizedExternalHash(message) ?? cell.hash();
    if (ctx.refuseUnaccepted) {
      const run = await ctx.serial(() => trialRun(ctx, message, false));
      if ('refused' in run) {
        // As a liteserver answers a message the account would not accept (the exit code, in its words).
        throw new ApiError(
          500,
          `cannot apply external message to current state: external message was not accepted by ${rawAddress(message.info.dest)}: exitcode=${run.refused ?? 0}`,
        );
      }
    }
    ctx.submit(message);
    return {
      message_hash: cell.hash().toString('base64'),
      message_hash_norm: norm.toString('base64'),
    };
  });

  return routes;
}
