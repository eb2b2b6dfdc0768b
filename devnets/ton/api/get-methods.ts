// runGetMethod: the node's stack forms in and out (num as 0x.., cell and slice as base64 BOC, tuples).
import { Cell, type TupleItem } from '@ton/core';
import { GetMethodError } from '@ton/sandbox';
import type { JsonObject } from '../api-json.ts';
import type { ApiContext } from './context.ts';
import { ApiError, unprocessable } from './errors.ts';
import { addressParam, isObject, requestFields } from './params.ts';

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

export async function runGetMethod(ctx: ApiContext, body: unknown): Promise<JsonObject> {
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
