import { readFileSync } from 'node:fs';
import {
  address,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase58Decoder,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import {
  getCreateAccountInstructionDataEncoder,
  getCreateAccountWithSeedInstructionDataEncoder,
  getTransferSolInstructionDataEncoder,
  getTransferSolWithSeedInstructionDataEncoder,
} from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getBurnInstructionDataEncoder,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToCheckedInstructionDataEncoder,
  getMintToInstructionDataEncoder,
  getTransferCheckedInstruction,
  getTransferCheckedInstructionDataEncoder,
  getTransferInstructionDataEncoder,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SolanaDevnet, startSolanaDevnet } from '../../../devnets/solana/index.ts';
import {
  SolanaBlockError,
  SYSTEM_PROGRAM,
  solanaBlockOf,
} from '../../../src/chains/solana/block-transfers.ts';
import { SOLANA_FINALITY } from '../../../src/chains/solana/finality.ts';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../../src/chains/solana/token-accounts.ts';
import type { TransferEvent } from '../../../src/chains/types.ts';
import { parseJsonWithBigInts } from '../../../src/json/lossless-parse.ts';
import { kitWire } from '../../helpers/solana-wire.ts';

const vectorText = readFileSync(new URL('../../vectors/solana_rpc_responses.json', import.meta.url), 'utf8');
/** Lossless, as the follower will read the node: the vector's faucet holds more than 2^53 lamports. */
const vectors = parseJsonWithBigInts(vectorText);

/** The value at a path of keys and indexes in parsed JSON, each step checked (no cast of the whole). */
function field(value: unknown, ...path: (string | number)[]): unknown {
  let at = value;
  for (const step of path) {
    if (typeof at !== 'object' || at === null) throw new Error(`no ${path.join('.')} in ${String(value)}`);
    at = Reflect.get(at, step);
  }
  return at;
}

/** A slot or amount as parsed losslessly: a number within 2^53, else a bigint. */
function integer(value: unknown): bigint {
  if (typeof value !== 'number' && typeof value !== 'bigint')
    throw new Error(`${String(value)} is no integer`);
  return BigInt(value);
}

const b58 = getBase58Decoder();
/** A distinct, valid address per label. */
const key = (n: number) => b58.decode(new Uint8Array(32).fill(n));
const data = (bytes: ArrayLike<number>) => b58.decode(Uint8Array.from(bytes));

const SLOT = 1000n;
const BLOCKHASH = key(201);
const PREVIOUS = key(202);
const TIME = 1_763_747_336;

function block(transactions: unknown[], extra: Record<string, unknown> = {}) {
  return {
    blockHeight: 900,
    blockTime: TIME,
    blockhash: BLOCKHASH,
    parentSlot: 998,
    previousBlockhash: PREVIOUS,
    transactions,
    ...extra,
  };
}

interface Ix {
  program: number;
  accounts: number[];
  data: string;
}

interface TokenBalance {
  index: number;
  mint: string;
  owner: string;
  amount: bigint;
  decimals: number;
  program?: string;
}

/** One getBlock entry, as the node writes it for `encoding: 'json'`. */
function tx(options: {
  signature: string;
  keys: string[];
  instructions: Ix[];
  pre: number[];
  post: number[];
  fee?: number;
  err?: unknown;
  inner?: { index: number; instructions: Ix[] }[];
  loaded?: { writable: string[]; readonly: string[] };
  preToken?: TokenBalance[];
  postToken?: TokenBalance[];
}) {
  const compiled = (ix: Ix) => ({
    accounts: ix.accounts,
    data: ix.data,
    programIdIndex: ix.program,
    stackHeight: null,
  });
  const balance = (b: TokenBalance) => ({
    accountIndex: b.index,
    mint: b.mint,
    owner: b.owner,
    programId: b.program ?? TOKEN_PROGRAM,
    uiTokenAmount: {
      amount: b.amount.toString(),
      decimals: b.decimals,
      uiAmount: Number(b.amount) / 10 ** b.decimals,
      uiAmountString: String(Number(b.amount) / 10 ** b.decimals),
    },
  });
  const err = options.err ?? null;
  return {
    meta: {
      computeUnitsConsumed: 150,
      err,
      fee: options.fee ?? 5000,
      innerInstructions: (options.inner ?? []).map((group) => ({
        index: group.index,
        instructions: group.instructions.map(compiled),
      })),
      loadedAddresses: options.loaded ?? { readonly: [], writable: [] },
      logMessages: [],
      postBalances: options.post,
      postTokenBalances: (options.postToken ?? []).map(balance),
      preBalances: options.pre,
      preTokenBalances: (options.preToken ?? []).map(balance),
      rewards: null,
      status: err === null ? { Ok: null } : { Err: err },
    },
    transaction: {
      message: {
        accountKeys: options.keys,
        header: { numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: 1, numRequiredSignatures: 1 },
        instructions: options.instructions.map(compiled),
        recentBlockhash: PREVIOUS,
      },
      signatures: [options.signature],
    },
    version: options.loaded ? 0 : 'legacy',
  };
}

const base = {
  chain: 'solana',
  network: 'mainnet',
  blockNumber: SLOT,
  blockHash: BLOCKHASH,
  time: new Date(TIME * 1000),
  tokenId: null,
} as const;

/** A transfer of the test block: its place, parties and amount, and the asset it moves. */
function transferEvent(
  txid: string,
  logIndex: number,
  from: string | null,
  to: string,
  amount: bigint,
  asset: Pick<TransferEvent, 'type' | 'contractAddress' | 'decimals'>,
): TransferEvent {
  return { ...base, txid, logIndex, from, to, amountRaw: amount, ...asset };
}

const sol = (txid: string, logIndex: number, from: string | null, to: string, amount: bigint) =>
  transferEvent(txid, logIndex, from, to, amount, { type: 'SOL', contractAddress: null, decimals: 9 });

const spl = (
  txid: string,
  logIndex: number,
  from: string | null,
  to: string,
  mint: string,
  amount: bigint,
  decimals: number,
) => transferEvent(txid, logIndex, from, to, amount, { type: 'SPL', contractAddress: mint, decimals });

const decode = (value: unknown) => solanaBlockOf(SLOT, value, 'solana', 'mainnet');
/** The transfers decoded from a block holding these transactions (see `tx`). */
const transfersOf = (...transactions: Parameters<typeof tx>[0][]) =>
  decode(block(transactions.map(tx))).transfers;
const transferData = (amount: bigint) => data(getTransferSolInstructionDataEncoder().encode({ amount }));

describe('solanaBlockOf: recorded node answers', () => {
  it('decodes the getTransaction vector (a devnet airdrop) as one SOL transfer', () => {
    const result = field(vectors, 'getTransaction', 'response', 'result');
    const slot = integer(field(result, 'slot'));
    const answer = {
      blockHeight: 1,
      blockTime: field(result, 'blockTime'),
      blockhash: BLOCKHASH,
      parentSlot: slot - 1n,
      previousBlockhash: PREVIOUS,
      transactions: [
        {
          meta: field(result, 'meta'),
          transaction: field(result, 'transaction'),
          version: field(result, 'version'),
        },
      ],
    };
    const decoded = solanaBlockOf(slot, answer, 'solana', 'testnet');
    expect(decoded).toEqual({
      number: 423108383n,
      hash: BLOCKHASH,
      parent: { number: 423108382n, hash: PREVIOUS },
      time: new Date(1_763_747_336_000),
      transfers: [
        {
          chain: 'solana',
          network: 'testnet',
          blockNumber: 423108383n,
          blockHash: BLOCKHASH,
          txid: '4ReKprwf3WdLHRrzp4ctPWNBsQDPL3VZz3zMmoZfcGJMJCHh5Vq937mPdyxhCbw54wNnA6hZ7KfNpQdpt13yY7A9',
          logIndex: 0,
          from: '9B5XszUGdMaxCZ7uSQhPzdks5ZQSmWxrmzCSvtJ6Ns6g',
          to: 'D1UPrG5kHPhEvwAoYpFymQkHsNNzx8jWooeAvKiPfgFQ',
          contractAddress: null,
          tokenId: null,
          type: 'SOL',
          amountRaw: 1_000_000_000n,
          decimals: 9,
          time: new Date(1_763_747_336_000),
        },
      ],
    });
  });

  it('refuses balances JSON.parse has rounded (the vector faucet holds more than 2^53 lamports)', () => {
    const rounded = field(JSON.parse(vectorText), 'getTransaction', 'response', 'result');
    const answer = block([{ meta: field(rounded, 'meta'), transaction: field(rounded, 'transaction') }]);
    expect(() => decode(answer)).toThrow(/slot 1000: .*preBalances\[0\] was rounded/);
  });

  it('reads the getBlock vector (a vote: the fee only, no transfer), and refuses its null blockTime', () => {
    const slot = integer(field(vectors, 'getBlock', 'request', 'params', 0));
    const answer = field(vectors, 'getBlock', 'response', 'result');
    expect(() => solanaBlockOf(slot, answer, 'solana', 'mainnet')).toThrow(
      new SolanaBlockError(378967388n, 'no blockTime'),
    );
    const timed = { ...Object(answer), blockTime: TIME };
    expect(solanaBlockOf(slot, timed, 'solana', 'mainnet')).toEqual({
      number: 378967388n,
      hash: '3Eq21vXNB5s86c62bVuUfTeaMif1N2kUqRPBmGRJhyTA',
      parent: { number: 429n, hash: 'mfcyqEXB3DnHXki6KjjmZck6YjmZLvpAByy2fj4nh6B' },
      time: new Date(TIME * 1000),
      transfers: [],
    });
  });
});

describe('solanaBlockOf: System program', () => {
  const [payer, from, baseKey, to, other] = [key(1), key(2), key(3), key(4), key(5)];

  it('TransferWithSeed: from the derived account to the third account', () => {
    const ix = getTransferSolWithSeedInstructionDataEncoder().encode({
      amount: 7_000_000n,
      fromSeed: 'savings',
      fromOwner: address(SYSTEM_PROGRAM),
    });
    const transfers = transfersOf({
      signature: 'tws',
      keys: [payer, from, baseKey, to, SYSTEM_PROGRAM],
      instructions: [{ program: 4, accounts: [1, 2, 3], data: data(ix) }],
      pre: [1_000_000, 9_000_000, 0, 5, 1],
      post: [995_000, 2_000_000, 0, 7_000_005, 1],
    });
    expect(transfers).toEqual([sol('tws', 0, from, to, 7_000_000n)]);
  });

  it('CreateAccount and CreateAccountWithSeed fund the new account; zero lamports are no transfer', () => {
    const create = getCreateAccountInstructionDataEncoder().encode({
      lamports: 2_039_280n,
      space: 165n,
      programAddress: address(TOKEN_PROGRAM),
    });
    const empty = getCreateAccountInstructionDataEncoder().encode({
      lamports: 0n,
      space: 0n,
      programAddress: address(SYSTEM_PROGRAM),
    });
    const withSeed = getCreateAccountWithSeedInstructionDataEncoder().encode({
      base: address(baseKey),
      seed: 'a seed of some length',
      amount: 1_461_600n,
      space: 82n,
      programAddress: address(TOKEN_PROGRAM),
    });
    const transfers = transfersOf({
      signature: 'create',
      keys: [payer, to, other, baseKey, SYSTEM_PROGRAM],
      instructions: [
        { program: 4, accounts: [0, 1], data: data(create) },
        { program: 4, accounts: [0, 3], data: data(empty) },
        { program: 4, accounts: [0, 2, 3], data: data(withSeed) },
      ],
      pre: [10_000_000, 0, 0, 0, 1],
      post: [10_000_000 - 5000 - 2_039_280 - 1_461_600, 2_039_280, 1_461_600, 0, 1],
    });
    expect(transfers).toEqual([
      sol('create', 0, payer, to, 2_039_280n),
      sol('create', 1, payer, other, 1_461_600n),
    ]);
  });

  it('numbers inner instructions after the top-level one that ran them, then the next top-level', () => {
    const program = key(99);
    const [mint, source, dest, alice, bob] = [key(30), key(31), key(32), key(33), key(34)];
    const transfers = transfersOf({
      signature: 'inner',
      keys: [payer, to, other, source, dest, program, SYSTEM_PROGRAM, TOKEN_PROGRAM],
      instructions: [
        { program: 5, accounts: [0, 1, 3, 4], data: data([1, 2, 3]) },
        { program: 6, accounts: [0, 2], data: transferData(300n) },
      ],
      inner: [
        {
          index: 0,
          instructions: [
            { program: 6, accounts: [0, 1], data: transferData(100n) },
            {
              program: 7,
              accounts: [3, 4, 0],
              data: data(getTransferInstructionDataEncoder().encode({ amount: 40n })),
            },
            { program: 6, accounts: [0, 1], data: transferData(0n) },
          ],
        },
      ],
      pre: [100_000, 0, 0, 2_039_280, 2_039_280, 1, 1, 1],
      post: [100_000 - 5000 - 400, 100, 300, 2_039_280, 2_039_280, 1, 1, 1],
      preToken: [
        { index: 3, mint, owner: alice, amount: 50n, decimals: 2 },
        { index: 4, mint, owner: bob, amount: 0n, decimals: 2 },
      ],
      postToken: [
        { index: 3, mint, owner: alice, amount: 10n, decimals: 2 },
        { index: 4, mint, owner: bob, amount: 40n, decimals: 2 },
      ],
    });
    expect(transfers).toEqual([
      sol('inner', 0, payer, to, 100n),
      spl('inner', 1, alice, bob, mint, 40n, 2),
      sol('inner', 2, payer, other, 300n),
    ]);
  });

  it('v0: instruction accounts reach the addresses loaded from lookup tables (writable, then readonly)', () => {
    const [loadedTo, loadedReadonly] = [key(40), key(41)];
    const transfers = transfersOf({
      signature: 'v0',
      keys: [payer, SYSTEM_PROGRAM],
      loaded: { writable: [loadedTo], readonly: [loadedReadonly] },
      instructions: [{ program: 1, accounts: [0, 2], data: transferData(123_456n) }],
      pre: [1_000_000, 1, 50, 1],
      post: [1_000_000 - 5000 - 123_456, 1, 50 + 123_456, 1],
    });
    expect(transfers).toEqual([sol('v0', 0, payer, loadedTo, 123_456n)]);
  });

  it('ignores a failed transaction (its fee is charged, nothing moved)', () => {
    const transfers = transfersOf(
      {
        signature: 'failed',
        keys: [payer, to, SYSTEM_PROGRAM],
        instructions: [{ program: 2, accounts: [0, 1], data: transferData(10n ** 12n) }],
        pre: [1_000_000, 0, 1],
        post: [995_000, 0, 1],
        err: { InstructionError: [0, { Custom: 1 }] },
      },
      {
        signature: 'ok',
        keys: [payer, to, SYSTEM_PROGRAM],
        instructions: [{ program: 2, accounts: [0, 1], data: transferData(10n) }],
        pre: [995_000, 0, 1],
        post: [989_990, 10, 1],
      },
    );
    expect(transfers).toEqual([sol('ok', 0, payer, to, 10n)]);
  });

  it('reports lamports no decoded instruction explains: an account closed into another', () => {
    const [closed, receiver, program] = [key(50), key(51), key(52)];
    const transfers = transfersOf({
      signature: 'close',
      keys: [payer, closed, receiver, program, SYSTEM_PROGRAM],
      instructions: [
        { program: 3, accounts: [1, 2], data: data([9]) },
        { program: 4, accounts: [0, 2], data: transferData(1_000n) },
      ],
      // A priority fee above the closed account's lamports: the fee is no unexplained loss.
      fee: 2_500_000,
      pre: [10_000_000, 2_039_280, 7, 1, 1],
      post: [10_000_000 - 2_500_000 - 1_000, 0, 7 + 1_000 + 2_039_280, 1, 1],
    });
    expect(transfers).toEqual([
      sol('close', 0, payer, receiver, 1_000n),
      sol('close', 1, closed, receiver, 2_039_280n),
    ]);
  });
});

describe('solanaBlockOf: SPL Token and Token-2022', () => {
  const [payer, mint, sourceAccount, destAccount, alice, bob] = [
    key(1),
    key(60),
    key(61),
    key(62),
    key(63),
    key(64),
  ];

  it('TransferChecked of Token-2022 into an account created by the transaction: its owner from post', () => {
    const ix = getTransferCheckedInstructionDataEncoder().encode({ amount: 2_500_000_000n, decimals: 9 });
    const t22 = { mint, decimals: 9, program: TOKEN_2022_PROGRAM };
    const transfers = transfersOf({
      signature: 'checked',
      keys: [payer, sourceAccount, destAccount, mint, TOKEN_2022_PROGRAM],
      instructions: [{ program: 4, accounts: [1, 3, 2, 0], data: data(ix) }],
      pre: [1_000_000, 2_500_000, 2_500_000, 1_000_000, 1],
      post: [995_000, 2_500_000, 2_500_000, 1_000_000, 1],
      preToken: [{ ...t22, index: 1, owner: alice, amount: 3_000_000_000n }],
      postToken: [
        { ...t22, index: 1, owner: alice, amount: 500_000_000n },
        { ...t22, index: 2, owner: bob, amount: 2_500_000_000n },
      ],
    });
    expect(transfers).toEqual([spl('checked', 0, alice, bob, mint, 2_500_000_000n, 9)]);
  });

  it('what a Token-2022 transfer hook runs follows the transfer, before the next top-level instruction', () => {
    const [hook, collector, tip] = [key(65), key(66), key(67)];
    const checked = getTransferCheckedInstructionDataEncoder().encode({ amount: 10n, decimals: 0 });
    const t22 = { mint, decimals: 0, program: TOKEN_2022_PROGRAM };
    const transfers = transfersOf({
      signature: 'hook',
      keys: [
        payer,
        sourceAccount,
        destAccount,
        collector,
        tip,
        mint,
        TOKEN_2022_PROGRAM,
        hook,
        SYSTEM_PROGRAM,
      ],
      instructions: [
        { program: 6, accounts: [1, 5, 2, 0, 7], data: data(checked) },
        { program: 8, accounts: [0, 4], data: transferData(20n) },
      ],
      inner: [
        {
          index: 0,
          instructions: [
            { program: 7, accounts: [0, 3], data: data([0]) },
            { program: 8, accounts: [0, 3], data: transferData(30n) },
          ],
        },
      ],
      pre: [1_000_000, 1, 1, 0, 0, 1, 1, 1, 1],
      post: [1_000_000 - 5000 - 50, 1, 1, 30, 20, 1, 1, 1, 1],
      preToken: [
        { ...t22, index: 1, owner: alice, amount: 10n },
        { ...t22, index: 2, owner: bob, amount: 0n },
      ],
      postToken: [
        { ...t22, index: 1, owner: alice, amount: 0n },
        { ...t22, index: 2, owner: bob, amount: 10n },
      ],
    });
    expect(transfers).toEqual([
      spl('hook', 0, alice, bob, mint, 10n, 0),
      sol('hook', 1, payer, collector, 30n),
      sol('hook', 2, payer, tip, 20n),
    ]);
  });

  it('MintTo and MintToChecked come from no one; a burn is no transfer', () => {
    const transfers = transfersOf({
      signature: 'mint',
      keys: [payer, destAccount, mint, TOKEN_PROGRAM],
      instructions: [
        {
          program: 3,
          accounts: [2, 1, 0],
          data: data(getMintToInstructionDataEncoder().encode({ amount: 5_000_000n })),
        },
        {
          program: 3,
          accounts: [2, 1, 0],
          data: data(getMintToCheckedInstructionDataEncoder().encode({ amount: 7n, decimals: 6 })),
        },
        {
          program: 3,
          accounts: [1, 2, 0],
          data: data(getBurnInstructionDataEncoder().encode({ amount: 2n })),
        },
      ],
      pre: [1_000_000, 2_039_280, 1_461_600, 1],
      post: [995_000, 2_039_280, 1_461_600, 1],
      preToken: [{ index: 1, mint, owner: bob, amount: 0n, decimals: 6 }],
      postToken: [{ index: 1, mint, owner: bob, amount: 5_000_005n, decimals: 6 }],
    });
    expect(transfers).toEqual([
      spl('mint', 0, null, bob, mint, 5_000_000n, 6),
      spl('mint', 1, null, bob, mint, 7n, 6),
    ]);
  });

  it('reports token balance changes no decoded instruction explains, per mint and owner', () => {
    const program = key(70);
    const [otherMint, carolAccount, carol] = [key(71), key(72), key(73)];
    const transfers = transfersOf({
      signature: 'cpi',
      keys: [payer, sourceAccount, destAccount, carolAccount, program],
      // A program moved alice's tokens to bob and minted carol some of another: neither is decoded.
      instructions: [{ program: 4, accounts: [1, 2, 3], data: data([1]) }],
      pre: [1_000_000, 1, 1, 1, 1],
      post: [995_000, 1, 1, 1, 1],
      preToken: [
        { index: 1, mint, owner: alice, amount: 900n, decimals: 6 },
        { index: 2, mint, owner: bob, amount: 100n, decimals: 6 },
        { index: 3, mint: otherMint, owner: carol, amount: 0n, decimals: 0 },
      ],
      postToken: [
        { index: 1, mint, owner: alice, amount: 600n, decimals: 6 },
        { index: 2, mint, owner: bob, amount: 400n, decimals: 6 },
        { index: 3, mint: otherMint, owner: carol, amount: 3n, decimals: 0 },
      ],
    });
    expect(transfers).toEqual([
      spl('cpi', 0, alice, bob, mint, 300n, 6),
      spl('cpi', 1, null, carol, otherMint, 3n, 0),
    ]);
  });
});

describe('solanaBlockOf: malformed answers throw, naming the slot', () => {
  const good = () =>
    tx({
      signature: 'sig',
      keys: [key(1), key(2), SYSTEM_PROGRAM],
      instructions: [{ program: 2, accounts: [0, 1], data: transferData(5n) }],
      pre: [100_000, 0, 1],
      post: [94_995, 5, 1],
    });
  const cases: [string, unknown, RegExp][] = [
    ['not an object', null, /block is not an object/],
    ['no blockhash', { ...block([]), blockhash: undefined }, /blockhash is not a string/],
    ['parent at the slot', block([], { parentSlot: 1000 }), /parentSlot 1000 is not below the slot/],
    ['negative blockTime', block([], { blockTime: -1 }), /blockTime is not a u64/],
    ['no transactions', { ...block([]), transactions: undefined }, /transactions is not an array/],
    ['no meta', block([{ ...good(), meta: null }]), /transactions\[0\]\.meta is not an object/],
    [
      'balances short of the keys',
      block([{ ...good(), meta: { ...good().meta, postBalances: [1, 2] } }]),
      /postBalances has 2 entries for 3 accounts/,
    ],
    [
      'an account index out of range',
      block([
        tx({
          signature: 'sig',
          keys: [key(1), SYSTEM_PROGRAM],
          instructions: [{ program: 1, accounts: [0, 2], data: transferData(5n) }],
          pre: [1, 1],
          post: [1, 1],
        }),
      ]),
      /instructions\[0\]\.accounts\[1\] is not an index below 2/,
    ],
    [
      'inner instructions of no top-level instruction',
      block([{ ...good(), meta: { ...good().meta, innerInstructions: [{ index: 1, instructions: [] }] } }]),
      /innerInstructions\[0\]\.index is not an index below 1/,
    ],
    [
      'instruction data not base58',
      block([
        tx({
          signature: 'sig',
          keys: [key(1), SYSTEM_PROGRAM],
          instructions: [{ program: 1, accounts: [0], data: '0OIl' }],
          pre: [1, 1],
          post: [1, 1],
        }),
      ]),
      /instruction 0 data is not base58/,
    ],
    [
      'a token amount that is not a u64',
      block([
        tx({
          signature: 'sig',
          keys: [key(1), key(2)],
          instructions: [],
          pre: [1, 1],
          post: [1, 1],
          postToken: [{ index: 1, mint: key(3), owner: key(4), amount: -1n, decimals: 0 }],
        }),
      ]),
      /postTokenBalances\[0\]\.uiTokenAmount\.amount is not a u64/,
    ],
    [
      'a token move without token balances',
      block([
        tx({
          signature: 'sig',
          keys: [key(1), key(2), key(3), TOKEN_PROGRAM],
          instructions: [
            {
              program: 3,
              accounts: [1, 2, 0],
              data: data(getTransferInstructionDataEncoder().encode({ amount: 1n })),
            },
          ],
          pre: [1, 1, 1, 1],
          post: [1, 1, 1, 1],
        }),
      ]),
      /moves tokens of account 1, which has no token balance/,
    ],
  ];
  it.each(cases)('%s', (_name, answer, message) => {
    expect(() => decode(answer)).toThrow(SolanaBlockError);
    expect(() => decode(answer)).toThrow(/^Solana block at slot 1000: /);
    expect(() => decode(answer)).toThrow(message);
  });
});

it('SOLANA_FINALITY: finalized 32 slots back, reorgs followed 150 slots deep', () => {
  expect(SOLANA_FINALITY).toEqual({
    mainnet: { finalityDepth: 32, reorgDepth: 150 },
    testnet: { finalityDepth: 32, reorgDepth: 150 },
  });
});

describe('solanaBlockOf on the Solana devnet (litesvm behind JSON-RPC)', () => {
  let devnet: SolanaDevnet;
  let alice: KeyPairSigner;
  let bob: KeyPairSigner;
  let usdt: string;
  let rent: bigint;

  beforeAll(async () => {
    devnet = await startSolanaDevnet({ slotIntervalMs: null });
    alice = await generateKeyPairSigner();
    bob = await generateKeyPairSigner();
    usdt = devnet.tokens.spl.USDT;
    rent = integer(await call('getMinimumBalanceForRentExemption', [165]));
  });
  afterAll(() => devnet?.close());

  /** One JSON-RPC call, read losslessly as the follower will (the faucet holds 10^18 lamports). */
  async function answer(method: string, params: unknown[]) {
    const res = await fetch(devnet.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = parseJsonWithBigInts(await res.text());
    return { result: field(body, 'result'), error: field(body, 'error') };
  }

  async function call(method: string, params: unknown[]): Promise<unknown> {
    const { result, error } = await answer(method, params);
    if (error !== undefined) throw new Error(`${method}: ${String(field(error, 'message'))}`);
    return result;
  }

  const getBlock = (slot: bigint) =>
    answer('getBlock', [
      Number(slot),
      {
        encoding: 'json',
        transactionDetails: 'full',
        maxSupportedTransactionVersion: 0,
        rewards: false,
        commitment: 'confirmed',
      },
    ]);

  /** The block holding `signature`, decoded, with the exact fields every event of it shares. */
  async function landed(signature: string) {
    const found = await call('getTransaction', [
      signature,
      { encoding: 'json', maxSupportedTransactionVersion: 0, commitment: 'confirmed' },
    ]);
    const slot = integer(field(found, 'slot'));
    const { result } = await getBlock(slot);
    const decoded = solanaBlockOf(slot, result, 'solana', 'testnet');
    const shared = {
      chain: 'solana',
      network: 'testnet',
      blockNumber: slot,
      blockHash: decoded.hash,
      time: decoded.time,
      txid: signature,
      tokenId: null,
    };
    return { decoded, shared, parentSlot: integer(field(result, 'parentSlot')) };
  }

  async function send(payer: KeyPairSigner, instructions: Instruction[], skipPreflight = false) {
    const wire = await kitWire(devnet.url, payer, instructions, 0);
    const rpc = createSolanaRpc(devnet.url);
    return rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight }).send();
  }

  const ata = async (owner: string) =>
    (
      await findAssociatedTokenPda({
        mint: address(usdt),
        owner: address(owner),
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      })
    )[0];

  it('an airdrop is a System transfer from the faucet', async () => {
    const signature = await devnet.airdrop(alice.address, 2_000_000_000n);
    const { decoded, shared, parentSlot } = await landed(signature);
    expect(decoded.parent).toEqual({ number: parentSlot, hash: expect.any(String) });
    expect(decoded.transfers).toEqual([
      {
        ...shared,
        logIndex: 0,
        from: devnet.faucet.address,
        to: alice.address,
        contractAddress: null,
        type: 'SOL',
        amountRaw: 2_000_000_000n,
        decimals: 9,
      },
    ]);
  });

  it('faucetSpl: a MintTo to the owner, and the new token account rent as a SOL residual', async () => {
    const signature = await devnet.faucetSpl(usdt, alice.address, 5_000_000n);
    const { decoded, shared } = await landed(signature);
    expect(decoded.transfers).toEqual([
      {
        ...shared,
        logIndex: 0,
        from: null,
        to: alice.address,
        contractAddress: usdt,
        type: 'SPL',
        amountRaw: 5_000_000n,
        decimals: 6,
      },
      // The ATA program's CreateAccount runs inside it; the devnet records no inner instructions.
      {
        ...shared,
        logIndex: 1,
        from: devnet.faucet.address,
        to: await ata(alice.address),
        contractAddress: null,
        type: 'SOL',
        amountRaw: rent,
        decimals: 9,
      },
    ]);
  });

  it('a kit-signed transferChecked after a skipped slot: owners, mint, amount; the parent lies two slots back', async () => {
    const before = integer(await call('getSlot', [{ commitment: 'confirmed' }]));
    const previous = await getBlock(before);
    devnet.skip(1);
    const bobAta = await ata(bob.address);
    const signature = await send(alice, [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: alice,
        ata: bobAta,
        owner: bob.address,
        mint: address(usdt),
      }),
      getTransferCheckedInstruction({
        source: await ata(alice.address),
        mint: address(usdt),
        destination: bobAta,
        authority: alice,
        amount: 1_250_000n,
        decimals: 6,
      }),
    ]);
    const { decoded, shared } = await landed(signature);
    expect(decoded.number).toBe(before + 2n);
    expect(field((await getBlock(before + 1n)).error, 'code')).toBe(-32007);
    expect(decoded.parent).toEqual({ number: before, hash: field(previous.result, 'blockhash') });
    expect(decoded.transfers).toEqual([
      {
        ...shared,
        logIndex: 0,
        from: alice.address,
        to: bob.address,
        contractAddress: usdt,
        type: 'SPL',
        amountRaw: 1_250_000n,
        decimals: 6,
      },
      {
        ...shared,
        logIndex: 1,
        from: alice.address,
        to: bobAta,
        contractAddress: null,
        type: 'SOL',
        amountRaw: rent,
        decimals: 9,
      },
    ]);
  });

  it('a failed transaction lands with its fee charged and no transfer', async () => {
    const signature = await send(
      alice,
      [
        getTransferCheckedInstruction({
          source: await ata(alice.address),
          mint: address(usdt),
          destination: await ata(bob.address),
          authority: alice,
          amount: 10n ** 12n,
          decimals: 6,
        }),
      ],
      true,
    );
    const { decoded } = await landed(signature);
    expect(decoded.transfers).toEqual([]);
  });
});
