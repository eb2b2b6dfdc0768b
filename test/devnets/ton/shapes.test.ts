// The JSON the devnet answers has the indexer's fields, with its types (64-bit numbers and coins as strings,
// small integers as numbers): a client written against toncenter reads the devnet unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTonDevnet, type TonDevnet } from '../../../devnets/ton/index.ts';
import { getJson, newWallet } from './helpers.ts';

let devnet: TonDevnet;
beforeAll(async () => {
  devnet = await startTonDevnet({ blockIntervalMs: null });
});
afterAll(async () => {
  await devnet?.close();
});

const TRANSACTION_FIELDS = [
  'account',
  'hash',
  'lt',
  'now',
  'mc_block_seqno',
  'trace_id',
  'prev_trans_hash',
  'prev_trans_lt',
  'orig_status',
  'end_status',
  'total_fees',
  'total_fees_extra_currencies',
  'description',
  'block_ref',
  'in_msg',
  'out_msgs',
  'account_state_before',
  'account_state_after',
  'emulated',
  'finality',
];

const MESSAGE_FIELDS = [
  'hash',
  'source',
  'destination',
  'value',
  'value_extra_currencies',
  'fwd_fee',
  'ihr_fee',
  'extra_flags',
  'created_lt',
  'created_at',
  'opcode',
  'decoded_opcode',
  'ihr_disabled',
  'bounce',
  'bounced',
  'import_fee',
  'message_content',
  'init_state',
];

const BLOCK_FIELDS = [
  'workchain',
  'shard',
  'seqno',
  'root_hash',
  'file_hash',
  'global_id',
  'version',
  'after_merge',
  'before_split',
  'after_split',
  'want_merge',
  'want_split',
  'key_block',
  'vert_seqno_incr',
  'flags',
  'gen_utime',
  'start_lt',
  'end_lt',
  'validator_list_hash_short',
  'gen_catchain_seqno',
  'min_ref_mc_seqno',
  'prev_key_block_seqno',
  'vert_seqno',
  'master_ref_seqno',
  'rand_seed',
  'created_by',
  'tx_count',
  'masterchain_block_ref',
  'prev_blocks',
];

describe('TON devnet: the indexer shapes', () => {
  it('a TON credit to an account without code reads as the indexer writes it', async () => {
    const receiver = newWallet().address;
    await devnet.fund(receiver.toString(), 1_000_000_000n);
    const { last } = (await getJson(devnet.url, '/api/v3/masterchainInfo')) as {
      last: Record<string, unknown>;
    };
    expect(Object.keys(last).sort()).toEqual([...BLOCK_FIELDS].sort());
    const page = await getJson(devnet.url, `/api/v3/transactions?account=${receiver.toString()}`);
    const [tx] = page['transactions'] as Record<string, unknown>[];
    expect(Object.keys(tx ?? {}).sort()).toEqual([...TRANSACTION_FIELDS].sort());
    expect(tx).toMatchObject({
      lt: expect.stringMatching(/^\d+$/),
      now: expect.any(Number),
      mc_block_seqno: expect.any(Number),
      orig_status: 'nonexist',
      end_status: 'uninit',
      total_fees: expect.stringMatching(/^\d+$/),
      description: {
        type: 'ord',
        aborted: true,
        credit_first: true,
        storage_ph: { storage_fees_collected: '0', status_change: 'unchanged' },
        credit_ph: { credit: '1000000000' },
        compute_ph: { skipped: true, reason: 'no_state' },
      },
      block_ref: { workchain: 0, shard: '8000000000000000' },
      out_msgs: [],
      emulated: false,
      finality: 'finalized',
    });
    const inMsg = tx?.['in_msg'] as Record<string, unknown>;
    expect(Object.keys(inMsg).sort()).toEqual([...MESSAGE_FIELDS].sort());
    expect(inMsg).toMatchObject({
      value: '1000000000',
      fwd_fee: expect.stringMatching(/^\d+$/),
      ihr_fee: '0',
      created_lt: expect.stringMatching(/^\d+$/),
      created_at: expect.stringMatching(/^\d+$/),
      opcode: null,
      ihr_disabled: true,
      bounce: false,
      bounced: false,
      import_fee: null,
      message_content: { decoded: { '@type': 'empty_cell' } },
      init_state: null,
    });
    const book = page['address_book'] as Record<string, { user_friendly: string }>;
    // A wallet that is not deployed is shown non-bounceable.
    expect(Object.values(book).map((e) => e.user_friendly)).toContain(
      receiver.toString({ bounceable: false, urlSafe: true }),
    );
  });
});
