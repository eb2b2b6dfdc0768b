// A landed transaction as the node writes it: the json and base64 encodings of the transaction, and meta.

import type { TxRecord } from './chain.ts';
import { toBase58, toBase64 } from './codec.ts';
import { invalidParams, RpcError } from './errors.ts';
import type { Json } from './json.ts';

export type TxEncoding = 'json' | 'base64';

export function txEncodingOf(value: unknown): TxEncoding {
  if (value === undefined || value === 'json') return 'json';
  if (value === 'base64') return 'base64';
  if (value === 'jsonParsed') return 'json';
  throw invalidParams(
    `Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`,
  );
}

/** The node refuses a v0 transaction to a client that did not say it reads them. */
export function checkVersion(record: TxRecord, maxSupported: unknown): void {
  const v = record.tx.message.version;
  if (v === 'legacy') return;
  if (typeof maxSupported !== 'number' || maxSupported < v) {
    throw new RpcError(
      -32015,
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
}

function costUnits(record: TxRecord): bigint {
  const m = record.tx.message;
  const writable = m.accountKeys.length - m.numReadonlySigned - m.numReadonlyUnsigned;
  const dataBytes = m.instructions.reduce((n, ix) => n + ix.data.length, 0);
  return (
    720n * BigInt(record.tx.signatures.length) +
    300n * BigInt(writable) +
    BigInt(Math.floor(dataBytes / 4)) +
    record.meta.computeUnitsConsumed
  );
}

export function metaJson(record: TxRecord): Json {
  const m = record.meta;
  return {
    computeUnitsConsumed: m.computeUnitsConsumed,
    costUnits: costUnits(record),
    err: m.err,
    fee: m.fee,
    innerInstructions: [],
    loadedAddresses: { readonly: [], writable: [] },
    logMessages: m.logMessages,
    postBalances: m.postBalances,
    postTokenBalances: m.postTokenBalances,
    preBalances: m.preBalances,
    preTokenBalances: m.preTokenBalances,
    rewards: [],
    status: m.err === null ? { Ok: null } : { Err: m.err },
  };
}

export function transactionJson(record: TxRecord, encoding: TxEncoding): Json {
  if (encoding === 'base64') return [toBase64(record.tx.bytes), 'base64'];
  const m = record.tx.message;
  const message: Record<string, Json> = {
    accountKeys: m.accountKeys,
    header: {
      numReadonlySignedAccounts: m.numReadonlySigned,
      numReadonlyUnsignedAccounts: m.numReadonlyUnsigned,
      numRequiredSignatures: m.numRequiredSignatures,
    },
    instructions: m.instructions.map((ix) => ({
      accounts: ix.accounts,
      data: toBase58(ix.data),
      programIdIndex: ix.programIdIndex,
      stackHeight: 1,
    })),
    recentBlockhash: m.recentBlockhash,
  };
  if (m.version !== 'legacy') message['addressTableLookups'] = m.lookups.map((l) => ({ ...l }));
  return { message, signatures: record.tx.signatures.map(toBase58) };
}

/**
 * One entry of getBlock's transactions, or getTransaction's body without slot and blockTime. As agave does,
 * `version` is written only for a client that gave maxSupportedTransactionVersion.
 */
export function landedJson(
  record: TxRecord,
  encoding: TxEncoding,
  maxSupported: unknown,
): Record<string, Json | undefined> {
  return {
    meta: metaJson(record),
    transaction: transactionJson(record, encoding),
    version: maxSupported === undefined || maxSupported === null ? undefined : record.tx.message.version,
  };
}
