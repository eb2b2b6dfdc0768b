/**
 * The client of toncenter's v3 API (the indexer's REST API the public endpoints serve) over the shared
 * NodeClient, so every call gets its timeout, jittered retries and failover. One method per endpoint the
 * family uses; every answer is read into a typed value as it arrives (node-answer.ts), so a node's
 * malformed JSON is a node error. The API key, where set, rides on every request as the endpoint's
 * `X-API-Key` header (settings.ts).
 */
import { type NodeClient, NodeError, NodeHttpError } from '../node-client.ts';
import { type JsonObject, NodeAnswer } from './node-answer.ts';

/** The masterchain's one shard. */
export const MASTERCHAIN = -1;

/** A block's place: workchain, shard (hex text, `8000000000000000` for the masterchain) and seqno. */
export interface TonBlockId {
  workchain: number;
  shard: string;
  seqno: number;
}

export interface TonBlock extends TonBlockId {
  /** Base64, as toncenter writes hashes. */
  rootHash: string;
  fileHash: string;
  /** -239 on mainnet, -3 on testnet. */
  globalId: number;
  /** Unix seconds. */
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  prevBlocks: TonBlockId[];
  /** The block as the node wrote it, for the read that answers it raw. */
  raw: JsonObject;
}

export interface TonMessage {
  /** Base64. */
  hash: string;
  /** TEP-467's normalized hash of an external-in message (base64); null for others. */
  hashNorm: string | null;
  /** Raw addresses (`0:ABCD…`); null for an external message's missing end. */
  source: string | null;
  destination: string | null;
  /** Nanotons carried; null for an external message. */
  value: bigint | null;
  fwdFee: bigint | null;
  createdLt: bigint | null;
  createdAt: number | null;
  /** The body's first 32 bits, where it has them. */
  opcode: number | null;
  bounce: boolean | null;
  bounced: boolean | null;
  /** The body as a base64 BOC. */
  body: string | null;
  /** The text comment the indexer read from the body, where it did. */
  comment: string | null;
}

export interface TonTransaction {
  /** Raw address of the account the transaction ran on. */
  account: string;
  /** Base64. */
  hash: string;
  /**
   * The hash (base64) of the first transaction of the trace this one belongs to: the one the external
   * message that set it all going came into. Null where the indexer has not named it.
   */
  traceId: string | null;
  lt: bigint;
  /** Unix seconds. */
  now: number;
  /** The masterchain block that closed its shard block; null while none has. */
  mcBlockSeqno: number | null;
  origStatus: string;
  endStatus: string;
  totalFees: bigint;
  aborted: boolean;
  /** Whether the compute phase ran and succeeded; null where it was skipped. */
  computeSuccess: boolean | null;
  computeSkipped: boolean;
  exitCode: number | null;
  actionSuccess: boolean | null;
  actionResultCode: number | null;
  /** The transaction had a bounce phase: the inbound message's value went back to its sender. */
  bouncePhase: boolean;
  blockRef: TonBlockId | null;
  inMsg: TonMessage | null;
  outMsgs: TonMessage[];
  /** The transaction as the node wrote it, for the reads that answer it raw. */
  raw: JsonObject;
}

export interface TonAccount {
  balance: bigint;
  /** Base64 BOCs; null for an account without them (uninit, nonexist). */
  code: string | null;
  data: string | null;
  lastTransactionLt: bigint | null;
  lastTransactionHash: string | null;
  /** `active`, `uninit`, `frozen` or `nonexist`. */
  status: string;
}

export interface TonWalletInformation {
  balance: bigint;
  /** `wallet v5 r1`, …; null for an account with no wallet code yet. */
  walletType: string | null;
  seqno: number | null;
  walletId: number | null;
  status: string;
  lastTransactionLt: bigint | null;
  lastTransactionHash: string | null;
}

/** One entry of a get-method's stack, in toncenter's v3 form. */
export type TonStackEntry =
  | { type: 'num'; value: bigint }
  | { type: 'cell' | 'slice'; value: string }
  | { type: 'other'; value: unknown };

/** What a get-method call is given: numbers, or cells and slices as base64 BOCs. */
export type TonStackArgument = { type: 'num'; value: bigint } | { type: 'cell' | 'slice'; value: string };

export interface TonGetMethodResult {
  gasUsed: bigint;
  exitCode: number;
  stack: TonStackEntry[];
}

export interface TonFees {
  inFwdFee: bigint;
  storageFee: bigint;
  gasFee: bigint;
  fwdFee: bigint;
}

export interface TonFeeEstimate {
  sourceFees: TonFees;
  destinationFees: TonFees[];
}

export interface TonFeeQuery {
  /** The account the message goes to (a wallet, for its external message). */
  address: string;
  /** The message body, a base64 BOC. */
  body: string;
  /** The state init's code and data (base64 BOCs) for an account not deployed yet. */
  initCode?: string;
  initData?: string;
  /** Estimate without the signature's check (for an unsigned body). */
  ignoreChksig: boolean;
}

export interface TonSentMessage {
  /** Base64. */
  messageHash: string;
  /** TEP-467's normalized hash (base64): what a user looks the send up by. */
  messageHashNorm: string | null;
}

/**
 * The node refused a message (it would not run on the account's current state, a bad signature, a BOC
 * that does not parse): its words, which a send answers with.
 */
export class TonMessageRefused extends NodeError {
  override readonly name = 'TonMessageRefused';
}

/** An account the chain has never seen. */
const UNSEEN_ACCOUNT: TonAccount = {
  balance: 0n,
  code: null,
  data: null,
  lastTransactionLt: null,
  lastTransactionHash: null,
  status: 'uninit',
};

/** How many transactions one page of a block's asks for (toncenter allows up to 1000). */
const BLOCK_PAGE = 256;

export class Toncenter {
  constructor(private readonly client: NodeClient) {}

  get chain(): string {
    return this.client.chain;
  }

  get network(): string {
    return this.client.network;
  }

  /** The first and the newest masterchain block the indexer has. */
  async masterchainInfo(): Promise<{ first: TonBlock; last: TonBlock }> {
    const answer = this.#answer('masterchainInfo', await this.client.getJson('/api/v3/masterchainInfo'));
    return { first: readBlock(answer.object('first')), last: readBlock(answer.object('last')) };
  }

  /** The masterchain block `seqno`; null when the indexer has none (yet). */
  async block(seqno: number): Promise<TonBlock | null> {
    const answer = this.#answer(
      'blocks',
      await this.client.getJson(`/api/v3/blocks?workchain=${MASTERCHAIN}&seqno=${seqno}&limit=1`),
    );
    const block = answer
      .objects('blocks')
      .map(readBlock)
      .find((b) => b.workchain === MASTERCHAIN);
    return block ?? null;
  }

  /** Every transaction a masterchain block closed (its own and its shard blocks'), page by page. */
  async transactionsOfBlock(seqno: number): Promise<TonTransaction[]> {
    const all: TonTransaction[] = [];
    for (let offset = 0; ; offset += BLOCK_PAGE) {
      const page = await this.#transactions(
        'transactionsByMasterchainBlock',
        `/api/v3/transactionsByMasterchainBlock?seqno=${seqno}&limit=${BLOCK_PAGE}&offset=${offset}&sort=asc`,
      );
      all.push(...page);
      if (page.length < BLOCK_PAGE) return all;
    }
  }

  /** The transaction of this hash (base64, base64url or hex); null when the indexer has none. */
  async transactionByHash(hash: string): Promise<TonTransaction | null> {
    const found = await this.#transactions(
      'transactions',
      `/api/v3/transactions?hash=${encodeURIComponent(hash)}&limit=1`,
    );
    return found[0] ?? null;
  }

  /**
   * The transactions a message took part in: the one it came into (`in`, the default), or the one that
   * sent it (`out`). The hash may be a normalized external message hash.
   */
  transactionsByMessage(messageHash: string, direction: 'in' | 'out' = 'in'): Promise<TonTransaction[]> {
    return this.#transactions(
      'transactionsByMessage',
      `/api/v3/transactionsByMessage?msg_hash=${encodeURIComponent(messageHash)}&direction=${direction}&limit=16`,
    );
  }

  /**
   * An account's state. The indexer answers an address the chain has never seen as `uninit` with 0 (some
   * deployments answer it 404), which reads the same here.
   */
  async account(address: string): Promise<TonAccount> {
    let value: unknown;
    try {
      value = await this.client.getJson(`/api/v3/account?address=${encodeURIComponent(address)}`);
    } catch (error) {
      if (error instanceof NodeHttpError && error.status === 404) return UNSEEN_ACCOUNT;
      throw error;
    }
    const answer = this.#answer('account', value);
    return {
      balance: answer.units('balance'),
      code: answer.optionalString('code'),
      data: answer.optionalString('data'),
      lastTransactionLt: answer.optionalUnits('last_transaction_lt'),
      lastTransactionHash: answer.optionalString('last_transaction_hash'),
      status: answer.string('status'),
    };
  }

  /** A wallet's state and seqno; null when the account holds a contract that is no wallet. */
  async walletInformation(address: string): Promise<TonWalletInformation | null> {
    let value: unknown;
    try {
      value = await this.client.getJson(
        `/api/v3/walletInformation?address=${encodeURIComponent(address)}&use_v2=false`,
      );
    } catch (error) {
      // The indexer answers 409 `not a wallet` for an account whose code is no wallet's.
      if (error instanceof NodeHttpError && error.status === 409) return null;
      throw error;
    }
    const answer = this.#answer('walletInformation', value);
    return {
      balance: answer.units('balance'),
      walletType: answer.optionalString('wallet_type'),
      seqno: answer.optionalInteger('seqno'),
      walletId: answer.optionalInteger('wallet_id'),
      status: answer.string('status'),
      lastTransactionLt: answer.optionalUnits('last_transaction_lt'),
      lastTransactionHash: answer.optionalString('last_transaction_hash'),
    };
  }

  /**
   * Runs a get-method at the newest state. A non-zero exit code is the contract's answer (the method is
   * missing, the account is not deployed), not an error: the caller reads `exitCode`.
   */
  async runGetMethod(
    address: string,
    method: string,
    stack: readonly TonStackArgument[] = [],
  ): Promise<TonGetMethodResult> {
    const body = {
      address,
      method,
      stack: stack.map((entry) =>
        entry.type === 'num' ? { type: 'num', value: hexNumber(entry.value) } : entry,
      ),
    };
    const answer = this.#answer('runGetMethod', await this.client.postJson('/api/v3/runGetMethod', body));
    return {
      gasUsed: answer.units('gas_used'),
      exitCode: answer.integer('exit_code'),
      stack: answer.objects('stack').map(readStackEntry),
    };
  }

  /** The fees a message to `address` would cost, as the node emulates it. */
  async estimateFee(query: TonFeeQuery): Promise<TonFeeEstimate> {
    const answer = this.#answer(
      'estimateFee',
      await this.client.postJson('/api/v3/estimateFee', {
        address: query.address,
        body: query.body,
        init_code: query.initCode ?? '',
        init_data: query.initData ?? '',
        ignore_chksig: query.ignoreChksig,
      }),
    );
    return {
      sourceFees: readFees(answer.object('source_fees')),
      destinationFees: answer.objects('destination_fees').map(readFees),
    };
  }

  /**
   * Sends an external message (a base64 BOC). The indexer passes a refusal on with the status its
   * liteserver gave (500 for a message that would not run, 4xx for one that does not parse) and the
   * words in `error`: those are a TonMessageRefused, not retried (a message re-sent as is would be
   * refused again). A 5xx without such words is a node that failed, retried on the next endpoint.
   */
  async sendMessage(bocBase64: string): Promise<TonSentMessage> {
    let value: unknown;
    try {
      value = await this.client.request({
        method: 'POST',
        path: '/api/v3/message',
        body: { boc: bocBase64 },
        answerStatuses: [500],
      });
    } catch (error) {
      if (error instanceof NodeHttpError) throw this.#refusal(error.body) ?? error;
      throw error;
    }
    const answer = this.#answer('message', value);
    if (answer.has('error')) {
      throw this.#refusal(JSON.stringify(answer.value)) ?? answer.fail('with an error and no words');
    }
    return {
      messageHash: answer.string('message_hash'),
      messageHashNorm: answer.optionalString('message_hash_norm'),
    };
  }

  /** A refusal's words from the indexer's `{ "error": "…" }` body; null when it holds none. */
  #refusal(body: string): TonMessageRefused | null {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return null;
    }
    const words =
      parsed !== null && typeof parsed === 'object' && 'error' in parsed ? parsed.error : undefined;
    if (typeof words !== 'string' || words === '') return null;
    return new TonMessageRefused(this.chain, this.network, words);
  }

  async #transactions(what: string, path: string): Promise<TonTransaction[]> {
    const answer = this.#answer(what, await this.client.getJson(path));
    return answer.objects('transactions').map(readTransaction);
  }

  #answer(what: string, value: unknown): NodeAnswer {
    return NodeAnswer.of(this.chain, this.network, what, value);
  }
}

/** A number as the get-method stack takes it: `0x…`, with a sign for a negative one. */
function hexNumber(value: bigint): string {
  return value < 0n ? `-0x${(-value).toString(16)}` : `0x${value.toString(16)}`;
}

function readBlockId(answer: NodeAnswer): TonBlockId {
  return { workchain: answer.integer('workchain'), shard: shardOf(answer), seqno: answer.integer('seqno') };
}

/** toncenter writes a shard as its 64 bits in hex text (`8000000000000000`), sometimes as a signed decimal. */
function shardOf(answer: NodeAnswer): string {
  const value = answer.value['shard'];
  if (typeof value === 'string' && /^[0-9a-fA-F]{16}$/.test(value)) return value.toUpperCase();
  if ((typeof value === 'string' && /^-?[0-9]{1,20}$/.test(value)) || typeof value === 'number') {
    return BigInt.asUintN(64, BigInt(value)).toString(16).toUpperCase().padStart(16, '0');
  }
  return answer.fail('without a shard');
}

function readBlock(answer: NodeAnswer): TonBlock {
  return {
    ...readBlockId(answer),
    rootHash: answer.string('root_hash'),
    fileHash: answer.string('file_hash'),
    globalId: answer.integer('global_id'),
    genUtime: Number(answer.units('gen_utime')),
    startLt: answer.units('start_lt'),
    endLt: answer.units('end_lt'),
    prevBlocks: answer.objects('prev_blocks').map(readBlockId),
    raw: answer.value,
  };
}

function readMessage(answer: NodeAnswer): TonMessage {
  const content = answer.optionalObject('message_content');
  const decoded = content?.optionalObject('decoded') ?? null;
  const opcode = answer.optionalString('opcode');
  return {
    hash: answer.string('hash'),
    hashNorm: answer.optionalString('hash_norm'),
    source: answer.optionalString('source'),
    destination: answer.optionalString('destination'),
    value: answer.optionalUnits('value'),
    fwdFee: answer.optionalUnits('fwd_fee'),
    createdLt: answer.optionalUnits('created_lt'),
    createdAt: answer.has('created_at') ? Number(answer.units('created_at')) : null,
    opcode: opcode === null ? null : opcodeOf(answer, opcode),
    bounce: answer.optionalBoolean('bounce'),
    bounced: answer.optionalBoolean('bounced'),
    body: content?.optionalString('body') ?? null,
    comment:
      decoded !== null && decoded.optionalString('type') === 'text_comment'
        ? decoded.optionalString('comment')
        : null,
  };
}

/** An opcode as toncenter writes it: `0x0f8a7ea5`, or a signed decimal in older indexers. */
function opcodeOf(answer: NodeAnswer, text: string): number {
  if (/^0x[0-9a-fA-F]{1,8}$/.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^-?[0-9]{1,10}$/.test(text)) return Number(BigInt.asUintN(32, BigInt(text)));
  return answer.fail('with an opcode that is not 32 bits');
}

function readTransaction(answer: NodeAnswer): TonTransaction {
  const description = answer.object('description');
  const compute = description.optionalObject('compute_ph');
  const action = description.optionalObject('action');
  const blockRef = answer.optionalObject('block_ref');
  const inMsg = answer.optionalObject('in_msg');
  return {
    account: answer.string('account'),
    hash: answer.string('hash'),
    traceId: answer.optionalString('trace_id'),
    lt: answer.units('lt'),
    now: answer.integer('now'),
    mcBlockSeqno: answer.optionalInteger('mc_block_seqno'),
    origStatus: answer.string('orig_status'),
    endStatus: answer.string('end_status'),
    totalFees: answer.units('total_fees'),
    aborted: description.optionalBoolean('aborted') ?? false,
    computeSkipped: compute?.optionalBoolean('skipped') ?? compute === null,
    computeSuccess: compute?.optionalBoolean('success') ?? null,
    exitCode: compute?.optionalInteger('exit_code') ?? null,
    actionSuccess: action?.optionalBoolean('success') ?? null,
    actionResultCode: action?.optionalInteger('result_code') ?? null,
    bouncePhase: description.has('bounce'),
    blockRef: blockRef === null ? null : readBlockId(blockRef),
    inMsg: inMsg === null ? null : readMessage(inMsg),
    outMsgs: answer.objects('out_msgs').map(readMessage),
    raw: answer.value,
  };
}

function readStackEntry(answer: NodeAnswer): TonStackEntry {
  const type = answer.string('type');
  if (type === 'num') {
    const text = answer.string('value');
    const negative = text.startsWith('-');
    const digits = negative ? text.slice(1) : text;
    if (!/^0x[0-9a-fA-F]+$/.test(digits)) answer.fail('with a number that is not hex');
    const value = BigInt(digits);
    return { type: 'num', value: negative ? -value : value };
  }
  if (type === 'cell' || type === 'slice') return { type, value: answer.string('value') };
  return { type: 'other', value: answer.value['value'] };
}

function readFees(answer: NodeAnswer): TonFees {
  return {
    inFwdFee: answer.units('in_fwd_fee'),
    storageFee: answer.units('storage_fee'),
    gasFee: answer.units('gas_fee'),
    fwdFee: answer.units('fwd_fee'),
  };
}
