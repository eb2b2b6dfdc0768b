// Transaction builders (createtransaction, transferasset, Stake 2.0) and broadcast endpoints.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { ACTUATORS, type ActuatorContext, ContractValidateError } from '../actuators.ts';
import { buildTransaction } from '../builder.ts';
import type { TronChain } from '../chain.ts';
import { type Json, stringifyJson } from '../json.ts';
import { BroadcastError } from '../processor.ts';
import { ProtoDecodeError } from '../protobuf.ts';
import { decodeTransaction, encodeContractValue, type Transaction, txIdOf } from '../transaction.ts';
import {
  JsonFormatError,
  jsonHexBytes,
  parseContractValue,
  parseTransactionJson,
  printRaw,
  printTransaction,
} from '../transaction-json.ts';
import { asServletError, CONTRACT_VALIDATE_EXCEPTION, intParam, stringParam } from './params.ts';
import { type Handler, type NodeRequest, ServletError } from './server.ts';

/** Util.setTransactionExtraData: the memo is text when visible, hex otherwise. */
export function extraData(req: NodeRequest): Uint8Array | undefined {
  const data = stringParam(req, 'extra_data');
  if (!data) return undefined;
  try {
    return req.visible ? new TextEncoder().encode(data) : jsonHexBytes(data);
  } catch (err) {
    throw asServletError(err);
  }
}

function builder(chain: TronChain, type: string): Handler {
  return (req) => {
    let value: ReturnType<typeof parseContractValue>;
    try {
      value = parseContractValue(type, req.params, req.visible);
    } catch (err) {
      throw asServletError(err);
    }
    const ctx: ActuatorContext = {
      world: chain.world,
      params: chain.params,
      headTime: chain.headTime,
      now: chain.headSlot,
    };
    try {
      ACTUATORS[type]?.validate(ctx, value);
    } catch (err) {
      if (err instanceof ContractValidateError)
        throw new ServletError(CONTRACT_VALIDATE_EXCEPTION, err.message);
      throw err;
    }
    const data = extraData(req);
    const tx = buildTransaction(chain, type, value, {
      permissionId: Number(intParam(req, 'Permission_id')),
      ...(data ? { data } : {}),
    });
    return printTransaction(tx, req.visible, { visibleKey: true });
  };
}

/** GrpcAPI.Return printed with JsonFormat: result omitted when false, code when SUCCESS. */
function printReturn(err: BroadcastError | null, visible: boolean): Record<string, Json> {
  if (!err) return { result: true };
  return {
    code: err.code,
    message: visible ? err.message : bytesToHex(new TextEncoder().encode(err.message)),
  };
}

async function broadcast(chain: TronChain, tx: Transaction): Promise<BroadcastError | null> {
  try {
    await chain.submit(tx);
    return null;
  } catch (err) {
    if (err instanceof BroadcastError) return err;
    throw err;
  }
}

/** JsonFormat.printToString(Transaction, true): contract parameters stay packed Any (hex value). */
function printRawProto(tx: Transaction): Json {
  const raw = printRaw(tx.raw, true);
  raw['contract'] = tx.raw.contracts.map((c) => {
    const j: Record<string, Json> = {
      parameter: { value: bytesToHex(encodeContractValue(c)), type_url: c.typeUrl },
      type: c.type,
    };
    if (c.permissionId) j['Permission_id'] = c.permissionId;
    return j;
  });
  const out: Record<string, Json> = { raw_data: raw };
  if (tx.signatures.length) out['signature'] = tx.signatures.map((s) => bytesToHex(s));
  return out;
}

export function buildRoutes(chain: TronChain): Record<string, Handler> {
  return {
    createaccount: builder(chain, 'AccountCreateContract'),
    createtransaction: builder(chain, 'TransferContract'),
    transferasset: builder(chain, 'TransferAssetContract'),
    freezebalancev2: builder(chain, 'FreezeBalanceV2Contract'),
    unfreezebalancev2: builder(chain, 'UnfreezeBalanceV2Contract'),
    withdrawexpireunfreeze: builder(chain, 'WithdrawExpireUnfreezeContract'),
    cancelallunfreezev2: builder(chain, 'CancelAllUnfreezeV2Contract'),
    delegateresource: builder(chain, 'DelegateResourceContract'),
    undelegateresource: builder(chain, 'UnDelegateResourceContract'),
    broadcasttransaction: async (req) => {
      let tx: Transaction;
      try {
        tx = parseTransactionJson(req.params, req.visible);
      } catch (err) {
        if (err instanceof JsonFormatError) throw asServletError(err);
        throw err;
      }
      const txid = txIdOf(tx.raw);
      return { ...printReturn(await broadcast(chain, tx), req.visible), txid };
    },
    broadcasthex: async (req) => {
      let tx: Transaction;
      try {
        tx = decodeTransaction(hexToBytes(stringParam(req, 'transaction').replace(/^0x/, '')));
      } catch (err) {
        const msg = err instanceof ProtoDecodeError || err instanceof Error ? err.message : String(err);
        throw new ServletError('class com.google.protobuf.InvalidProtocolBufferException', msg);
      }
      const err = await broadcast(chain, tx);
      return {
        result: err === null,
        code: err ? err.code : 'SUCCESS',
        message: err ? err.message : '',
        transaction: stringifyJson(printRawProto(tx)),
        txid: txIdOf(tx.raw),
      };
    },
  };
}
