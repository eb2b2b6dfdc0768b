// Running an external message on the account as it is, without keeping what it did: fee estimates, and
// the liteserver's check of a message before it is queued.
import { Cell, type Message, type Transaction } from '@ton/core';
import { EmulationError } from '@ton/sandbox';
import type { JsonObject } from '../api-json.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import { addressParam, cellParam, requestFields } from './params.ts';

/**
 * Runs an external message on the account as it is now and puts the account back: the transaction it
 * would make, or the exit code (undefined when unknown) with which the account refuses it.
 */
export async function trialRun(
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
export async function estimateFee(ctx: ApiContext, body: unknown): Promise<JsonObject> {
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
