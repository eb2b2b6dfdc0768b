// The toncenter v3 endpoints the devnet serves, over its chain and emulator.
import { Address, Cell, loadMessage, type Message, type Transaction, type TupleItem } from '@ton/core';
import { EmulationError, GetMethodError } from '@ton/sandbox';
import { WalletContractV5R1 } from '@ton/ton';
import { blockJson, type JsonObject, transactionJson } from '../api-json.ts';
import { accountOf, BASECHAIN, MASTERCHAIN, type StoredTx, type TonChain } from '../chain.ts';
import { normalizedExternalHash, parseAnyAddress, rawAddress } from '../messages.ts';
import { ApiError, unprocessable } from './errors.ts';

export type Route = (query: URLSearchParams, body: unknown) => Promise<unknown>;

export interface ApiContext {
  chain: TonChain;
  globalId: number;
  /** Runs work on the emulator one piece at a time (block closes and get-methods never interleave). */
  serial<T>(job: () => Promise<T>): Promise<T>;
  /** Queues an external message for the next block. */
  submit(message: Message): void;
  /** Whether POST /message first runs the message on the current state and refuses what the account would. */
  refuseUnaccepted: boolean;
}

const ZERO_HASH = Buffer.alloc(32).toString('base64');
const V5R1_CODE_HASH = WalletContractV5R1.create({
  workchain: 0,
  publicKey: Buffer.alloc(32),
}).init.code.hash();

// ---- query parameters ----

function intParam(
  query: URLSearchParams,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = query.get(name);
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw unprocessable(`failed to parse query parameter ${name}: ${text}`);
  }
  return value;
}

function sortParam(query: URLSearchParams): 'asc' | 'desc' {
  const sort = query.get('sort') ?? 'desc';
  if (sort !== 'asc' && sort !== 'desc') throw unprocessable(`wrong value for sort parameter: ${sort}`);
  return sort;
}

function addressParam(text: string | null, required: string): Address {
  if (text === null || text === '') throw new ApiError(401, required);
  const address = parseAnyAddress(text);
  if (!address) throw unprocessable(`failed to parse address: ${text}`);
  return address;
}

/** A 32-byte hash given in base64, base64url or hex, as base64; null when it is none of them. */
export function hashParam(text: string): string | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex').toString('base64');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const bytes = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes.toString('base64');
  }
  return null;
}

function page<T>(items: T[], query: URLSearchParams, ascending: (a: T, b: T) => number): T[] {
  const limit = intParam(query, 'limit', 10, 1, 1000);
  const offset = intParam(query, 'offset', 0);
  const sorted = [...items].sort(ascending);
  if (sortParam(query) === 'desc') sorted.reverse();
  return sorted.slice(offset, offset + limit);
}

const byLt = (a: StoredTx, b: StoredTx) => (a.tx.lt < b.tx.lt ? -1 : a.tx.lt > b.tx.lt ? 1 : 0);

// ---- accounts ----

function isWalletCode(code: Cell | null | undefined): boolean {
  return !!code && code.hash().equals(V5R1_CODE_HASH);
}

/** The user-friendly form the address book shows: bounceable only for a deployed contract that is not a wallet. */
function userFriendly(ctx: ApiContext, address: Address): string {
  const state = ctx.chain.peek(address)?.accountState;
  const contract = state?.type === 'active' && !isWalletCode(state.state.code);
  return address.toString({ bounceable: contract, testOnly: ctx.globalId === -3, urlSafe: true });
}

/** Every address the transactions name (accounts, message sources and destinations) in its user-friendly form. */
function addressBook(ctx: ApiContext, txs: StoredTx[]): JsonObject {
  const book: JsonObject = {};
  const note = (address: Address | null | undefined) => {
    if (!address) return;
    const raw = rawAddress(address);
    if (!(raw in book)) book[raw] = { user_friendly: userFriendly(ctx, address), domain: null };
  };
  for (const { tx } of txs) {
    note(new Address(BASECHAIN, Buffer.from(tx.address.toString(16).padStart(64, '0'), 'hex')));
    for (const message of [tx.inMessage, ...tx.outMessages.values()]) {
      if (!message) continue;
      const { info } = message;
      if (info.type !== 'external-in' && info.src) note(info.src);
      if (info.type !== 'external-out' && info.dest) note(info.dest);
    }
  }
  return book;
}

function txList(ctx: ApiContext, txs: StoredTx[]): JsonObject {
  return {
    transactions: txs.map((t) => transactionJson(t, accountOf(t.tx))),
    address_book: addressBook(ctx, txs),
  };
}

/** The JSON object a POST carried, or an empty one (its fields then read as missing). */
function requestFields(body: unknown): Record<string, unknown> {
  return isObject(body) ? body : {};
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface AccountView {
  status: 'active' | 'uninit' | 'frozen' | 'nonexist';
  balance: bigint;
  code: Cell | null;
  data: Cell | null;
  frozenHash: string | null;
  lastLt: bigint;
  lastHash: string;
}

function accountView(ctx: ApiContext, address: Address): AccountView {
  const shard = ctx.chain.peek(address)?.account;
  const account = shard?.account;
  const none: AccountView = {
    status: 'nonexist',
    balance: 0n,
    code: null,
    data: null,
    frozenHash: null,
    lastLt: 0n,
    lastHash: ZERO_HASH,
  };
  if (!shard || !account) return none;
  const last = {
    lastLt: shard.lastTransactionLt,
    lastHash: Buffer.from(shard.lastTransactionHash.toString(16).padStart(64, '0'), 'hex').toString('base64'),
  };
  const balance = account.storage.balance.coins;
  const state = account.storage.state;
  if (state.type === 'active') {
    return {
      ...none,
      ...last,
      status: 'active',
      balance,
      code: state.state.code ?? null,
      data: state.state.data ?? null,
    };
  }
  if (state.type === 'frozen') {
    const frozenHash = Buffer.from(state.stateHash.toString(16).padStart(64, '0'), 'hex').toString('base64');
    return { ...none, ...last, status: 'frozen', balance, frozenHash };
  }
  if (shard.lastTransactionLt === 0n && balance === 0n) return none;
  return { ...none, ...last, status: 'uninit', balance };
}

const bocOrNull = (cell: Cell | null) => (cell ? cell.toBoc().toString('base64') : null);

// ---- get-methods ----

function stackInput(item: unknown): TupleItem {
  if (!isObject(item)) throw unprocessable('stack entry must be an object');
  const { type, value } = item;
  if (type === 'num') {
    if (typeof value === 'number' && Number.isSafeInteger(value))
      return { type: 'int', value: BigInt(value) };
    if (typeof value === 'string' && /^-?(0x[0-9a-fA-F]+|\d+)$/.test(value)) {
      const negative = value.startsWith('-');
      const magnitude = BigInt(negative ? value.slice(1) : value);
      return { type: 'int', value: negative ? -magnitude : magnitude };
    }
    throw unprocessable(`failed to parse num stack entry: ${String(value)}`);
  }
  if (type === 'cell' || type === 'slice') {
    if (typeof value !== 'string') throw unprocessable(`${type} stack entry must be a base64 BOC`);
    let cell: Cell;
    try {
      cell = Cell.fromBase64(value);
    } catch {
      throw unprocessable(`failed to parse ${type} stack entry`);
    }
    return type === 'cell' ? { type: 'cell', cell } : { type: 'slice', cell };
  }
  throw new ApiError(500, `unsupported stack parameter type: ${String(type)}`);
}

function hexNum(value: bigint): string {
  return value < 0n ? `-0x${(-value).toString(16)}` : `0x${value.toString(16)}`;
}

function stackOutput(item: TupleItem): JsonObject {
  switch (item.type) {
    case 'int':
      return { type: 'num', value: hexNum(item.value) };
    case 'nan':
      return { type: 'unsupported_type', value: null };
    case 'null':
      return { type: 'list', value: [] };
    case 'cell':
    case 'builder':
      return { type: 'cell', value: item.cell.toBoc().toString('base64') };
    case 'slice':
      return { type: 'slice', value: item.cell.toBoc().toString('base64') };
    case 'tuple':
      return { type: 'tuple', value: item.items.map(stackOutput) };
  }
}

async function runGetMethod(ctx: ApiContext, body: unknown): Promise<JsonObject> {
  const request = requestFields(body);
  const address = addressParam(
    typeof request['address'] === 'string' ? request['address'] : null,
    'address is required',
  );
  const method = request['method'];
  if (method === undefined || method === null || method === '') throw new ApiError(401, 'method is required');
  if (typeof method !== 'string' && typeof method !== 'number')
    throw unprocessable('method must be a name or an id');
  const stackIn = request['stack'] ?? [];
  if (!Array.isArray(stackIn)) throw unprocessable('stack must be a list');
  const stack = stackIn.map(stackInput);
  const id = typeof method === 'number' || /^-?\d+$/.test(method) ? Number(method) : method;
  return ctx.serial(async () => {
    const contract = ctx.chain.peek(address);
    // As the node answers for a contract without code.
    if (contract?.accountState?.type !== 'active') return { gas_used: 0, exit_code: -13, stack: [] };
    try {
      const result = await ctx.chain.emulator.runGetMethod(address, id, stack);
      return {
        gas_used: Number(result.gasUsed),
        exit_code: result.exitCode,
        stack: result.stack.map(stackOutput),
      };
    } catch (error) {
      if (error instanceof GetMethodError) {
        return { gas_used: Number(error.gasUsed), exit_code: error.exitCode, stack: [] };
      }
      throw error;
    }
  });
}

// ---- fees ----

function cellParam(request: Record<string, unknown>, name: string): Cell | null {
  const value = request[name];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw unprocessable(`${name} must be a base64 BOC`);
  try {
    return Cell.fromBase64(value);
  } catch {
    throw unprocessable(`failed to parse ${name}`);
  }
}

/**
 * Runs an external message on the account as it is now and puts the account back: the transaction it
 * would make, or the exit code (undefined when unknown) with which the account refuses it.
 */
async function trialRun(
  ctx: ApiContext,
  message: Message,
  ignoreChksig: boolean,
): Promise<{ tx: Transaction } | { refused: number | undefined }> {
  if (message.info.type !== 'external-in') return { refused: undefined };
  const contract = await ctx.chain.emulator.getContract(message.info.dest);
  const before = contract.snapshot();
  try {
    return { tx: await contract.receiveMessage(message, { ignoreChksig }) };
  } catch (error) {
    if (error instanceof EmulationError) return { refused: error.exitCode };
    throw error;
  } finally {
    contract.loadFrom(before);
  }
}

/**
 * Runs an external message with `body` on a copy of the account (put back afterwards) and answers what the
 * account's transaction would be charged; destination fees are not estimated (as toncenter usually answers).
 */
async function estimateFee(ctx: ApiContext, body: unknown): Promise<JsonObject> {
  const request = requestFields(body);
  const address = addressParam(
    typeof request['address'] === 'string' ? request['address'] : null,
    'address is required',
  );
  const messageBody = cellParam(request, 'body') ?? Cell.EMPTY;
  const code = cellParam(request, 'init_code');
  const data = cellParam(request, 'init_data');
  const ignoreChksig = request['ignore_chksig'] !== false;
  const message: Message = {
    info: { type: 'external-in', dest: address, importFee: 0n },
    ...(code && data ? { init: { code, data } } : {}),
    body: messageBody,
  };
  return ctx.serial(async () => {
    const run = await trialRun(ctx, message, ignoreChksig);
    if ('refused' in run) {
      throw new ApiError(
        500,
        run.refused === undefined ? 'external message was not accepted' : `Exit code ${run.refused} != 0`,
      );
    }
    const { tx } = run;
    const d = tx.description;
    const storage = d.type === 'generic' ? (d.storagePhase?.storageFeesCollected ?? 0n) : 0n;
    const gas = d.type === 'generic' && d.computePhase.type === 'vm' ? d.computePhase.gasFees : 0n;
    const actionFees = d.type === 'generic' ? (d.actionPhase?.totalActionFees ?? 0n) : 0n;
    const fwd = d.type === 'generic' ? (d.actionPhase?.totalFwdFees ?? 0n) : 0n;
    return {
      source_fees: {
        in_fwd_fee: Number(tx.totalFees.coins - storage - gas - actionFees),
        storage_fee: Number(storage),
        gas_fee: Number(gas),
        fwd_fee: Number(fwd),
      },
      destination_fees: [],
    };
  });
}

// ---- routes ----

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
