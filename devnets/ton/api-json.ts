// The indexer's JSON for blocks, transactions and messages (toncenter API v3): 64-bit numbers and coins
// as strings, hashes in base64, raw addresses in upper-case hex, op codes as "0x…" strings.
import {
  type AccountStatus,
  beginCell,
  type Cell,
  loadMessage,
  type StateInit,
  storeStateInit,
  type Transaction,
  type TransactionActionPhase,
  type TransactionComputePhase,
} from '@ton/core';
import { BASECHAIN, type BlockRecord, MASTERCHAIN, type StoredTx, WHOLE_SHARD } from './chain.ts';
import { normalizedExternalHash, opcodeOf, rawAddress, textComment } from './messages.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const b64 = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').toString('base64');
const ZERO_HASH = b64(0n);

export function blockJson(
  block: BlockRecord,
  workchain: number,
  globalId: number,
  prev: BlockRecord | undefined,
): JsonObject {
  const master = workchain === MASTERCHAIN;
  const ref = (wc: number, seqno: number): JsonObject => ({ workchain: wc, shard: WHOLE_SHARD, seqno });
  return {
    workchain,
    shard: WHOLE_SHARD,
    seqno: block.seqno,
    root_hash: master ? block.rootHash : block.shardRootHash,
    file_hash: master ? block.fileHash : block.shardFileHash,
    global_id: globalId,
    version: 0,
    after_merge: false,
    before_split: false,
    after_split: false,
    want_merge: false,
    want_split: false,
    key_block: block.seqno === 0 && master,
    vert_seqno_incr: false,
    flags: 1,
    gen_utime: String(block.genUtime),
    start_lt: block.startLt.toString(),
    end_lt: block.endLt.toString(),
    validator_list_hash_short: 0,
    gen_catchain_seqno: 0,
    min_ref_mc_seqno: Math.max(block.seqno - 1, 0),
    prev_key_block_seqno: 0,
    vert_seqno: 0,
    master_ref_seqno: block.seqno,
    rand_seed: master ? block.fileHash : block.shardFileHash,
    created_by: ZERO_HASH,
    tx_count: master ? 0 : block.txs.length,
    masterchain_block_ref: ref(MASTERCHAIN, block.seqno),
    prev_blocks: prev ? [ref(workchain, prev.seqno)] : [],
  };
}

const STATUS: Record<AccountStatus, string> = {
  uninitialized: 'uninit',
  frozen: 'frozen',
  active: 'active',
  'non-existing': 'nonexist',
};

function computeJson(phase: TransactionComputePhase): JsonObject {
  if (phase.type === 'skipped') return { skipped: true, reason: phase.reason.replace('-', '_') };
  return {
    skipped: false,
    success: phase.success,
    msg_state_used: phase.messageStateUsed,
    account_activated: phase.accountActivated,
    gas_fees: phase.gasFees.toString(),
    gas_used: phase.gasUsed.toString(),
    gas_limit: phase.gasLimit.toString(),
    ...(phase.gasCredit != null ? { gas_credit: phase.gasCredit.toString() } : {}),
    mode: phase.mode,
    exit_code: phase.exitCode,
    ...(phase.exitArg != null ? { exit_arg: phase.exitArg } : {}),
    vm_steps: phase.vmSteps,
    vm_init_state_hash: b64(phase.vmInitStateHash),
    vm_final_state_hash: b64(phase.vmFinalStateHash),
  };
}

function actionJson(phase: TransactionActionPhase): JsonObject {
  return {
    success: phase.success,
    valid: phase.valid,
    no_funds: phase.noFunds,
    status_change: phase.statusChange,
    ...(phase.totalFwdFees != null ? { total_fwd_fees: phase.totalFwdFees.toString() } : {}),
    ...(phase.totalActionFees != null ? { total_action_fees: phase.totalActionFees.toString() } : {}),
    result_code: phase.resultCode,
    ...(phase.resultArg != null ? { result_arg: phase.resultArg } : {}),
    tot_actions: phase.totalActions,
    spec_actions: phase.specActions,
    skipped_actions: phase.skippedActions,
    msgs_created: phase.messagesCreated,
    action_list_hash: b64(phase.actionListHash),
    tot_msg_size: {
      cells: phase.totalMessageSize.cells.toString(),
      bits: phase.totalMessageSize.bits.toString(),
    },
  };
}

function descriptionJson(tx: Transaction): JsonObject {
  const d = tx.description;
  if (d.type !== 'generic' && d.type !== 'tick-tock') return { type: d.type, aborted: false };
  const storage = d.storagePhase;
  const out: JsonObject = {
    type: d.type === 'generic' ? 'ord' : 'tick_tock',
    aborted: d.aborted,
    destroyed: d.destroyed,
    credit_first: d.type === 'generic' ? d.creditFirst : false,
    is_tock: d.type === 'tick-tock' ? d.isTock : false,
    installed: false,
  };
  if (storage) {
    out['storage_ph'] = {
      storage_fees_collected: storage.storageFeesCollected.toString(),
      ...(storage.storageFeesDue != null ? { storage_fees_due: storage.storageFeesDue.toString() } : {}),
      status_change: storage.statusChange,
    };
  }
  if (d.type === 'generic' && d.creditPhase) {
    out['credit_ph'] = { credit: d.creditPhase.credit.coins.toString() };
  }
  out['compute_ph'] = computeJson(d.computePhase);
  if (d.actionPhase) out['action'] = actionJson(d.actionPhase);
  if (d.type === 'generic' && d.bouncePhase) {
    const b = d.bouncePhase;
    out['bounce'] =
      b.type === 'ok'
        ? {
            type: 'ok',
            msg_size: { cells: b.messageSize.cells.toString(), bits: b.messageSize.bits.toString() },
            msg_fees: b.messageFees.toString(),
            fwd_fees: b.forwardFees.toString(),
          }
        : b.type === 'no-funds'
          ? {
              type: 'nofunds',
              msg_size: { cells: b.messageSize.cells.toString(), bits: b.messageSize.bits.toString() },
              req_fwd_fees: b.requiredForwardFees.toString(),
            }
          : { type: 'negfunds' };
  }
  return out;
}

const bocOf = (cell: Cell) => cell.toBoc().toString('base64');

function initStateJson(init: StateInit): JsonObject {
  const cell = beginCell().store(storeStateInit(init)).endCell();
  return { hash: cell.hash().toString('base64'), body: bocOf(cell) };
}

/** What the indexer decodes of a body: a text comment, an empty cell, else nothing. */
function decodedBody(body: Cell, comment: string | null): JsonObject | null {
  if (comment !== null) return { type: 'text_comment', comment };
  if (body.bits.length === 0 && body.refs.length === 0) return { '@type': 'empty_cell' };
  return null;
}

/** One message of a transaction, from its stored cell. */
export function messageJson(cell: Cell): JsonObject {
  const msg = loadMessage(cell.beginParse());
  const info = msg.info;
  const body = msg.body;
  const comment = textComment(body);
  const out: JsonObject = {
    hash: cell.hash().toString('base64'),
    source: info.type === 'external-in' || !info.src ? null : rawAddress(info.src),
    destination: info.type === 'external-out' || !info.dest ? null : rawAddress(info.dest),
    value: info.type === 'internal' ? info.value.coins.toString() : null,
    value_extra_currencies: info.type === 'internal' ? {} : null,
    fwd_fee: info.type === 'internal' ? info.forwardFee.toString() : null,
    ihr_fee: info.type === 'internal' ? info.ihrFee.toString() : null,
    extra_flags: info.type === 'internal' ? '0' : null,
    created_lt: info.type === 'external-in' ? null : info.createdLt.toString(),
    created_at: info.type === 'external-in' ? null : String(info.createdAt),
    opcode: opcodeOf(body),
    decoded_opcode: null,
    ihr_disabled: info.type === 'internal' ? info.ihrDisabled : null,
    bounce: info.type === 'internal' ? info.bounce : null,
    bounced: info.type === 'internal' ? info.bounced : null,
    import_fee: info.type === 'external-in' ? info.importFee.toString() : null,
    message_content: {
      hash: body.hash().toString('base64'),
      body: bocOf(body),
      decoded: decodedBody(body, comment),
    },
    init_state: msg.init ? initStateJson(msg.init) : null,
  };
  const norm = normalizedExternalHash(msg);
  if (norm) out['hash_norm'] = norm.toString('base64');
  return out;
}

const accountState = (hash: Buffer): JsonObject => ({
  hash: hash.toString('base64'),
  balance: null,
  extra_currencies: null,
  account_status: null,
  frozen_hash: null,
  data_hash: null,
  code_hash: null,
});

export function transactionJson(stored: StoredTx, account: string): JsonObject {
  const { tx } = stored;
  return {
    account,
    hash: stored.hash,
    lt: tx.lt.toString(),
    now: tx.now,
    mc_block_seqno: stored.mcSeqno,
    trace_id: stored.traceId,
    prev_trans_hash: b64(tx.prevTransactionHash),
    prev_trans_lt: tx.prevTransactionLt.toString(),
    // The emulator starts an unseen account as an empty uninit one; the chain calls it nonexist.
    orig_status:
      tx.oldStatus === 'uninitialized' && tx.prevTransactionLt === 0n ? 'nonexist' : STATUS[tx.oldStatus],
    end_status: STATUS[tx.endStatus],
    total_fees: tx.totalFees.coins.toString(),
    total_fees_extra_currencies: {},
    description: descriptionJson(tx),
    block_ref: { workchain: BASECHAIN, shard: WHOLE_SHARD, seqno: stored.mcSeqno },
    in_msg: stored.inMsg ? messageJson(stored.inMsg) : null,
    out_msgs: stored.outMsgs.map(messageJson),
    account_state_before: accountState(tx.stateUpdate.oldHash),
    account_state_after: accountState(tx.stateUpdate.newHash),
    emulated: false,
    // A masterchain block is final once it exists.
    finality: 'finalized',
  };
}
