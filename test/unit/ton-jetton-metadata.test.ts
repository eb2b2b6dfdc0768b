// A jetton master's decimals as the gateway reads them from `get_jetton_data` (TEP-64 content): named on
// chain, TEP-64's default 9 where the on-chain metadata is whole and names none, and unknown (null) where
// only an off-chain document could tell; an amount of a jetton whose decimals are unknown is refused.
import { sha256 } from '@noble/hashes/sha2.js';
import { beginCell, type Cell, Dictionary } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { amountDecimals, Jettons, reportedDecimals } from '../../src/chains/ton/jettons.ts';
import type { Toncenter, TonGetMethodResult } from '../../src/chains/ton/toncenter.ts';
import { ApiError } from '../../src/errors.ts';

const snake = (text: string) => beginCell().storeUint(0, 8).storeStringTail(text).endCell();

function onChain(entries: Record<string, string>): Cell {
  const dictionary = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  for (const [key, value] of Object.entries(entries)) {
    dictionary.set(Buffer.from(sha256(new TextEncoder().encode(key))), snake(value));
  }
  return beginCell().storeUint(0, 8).storeDict(dictionary).endCell();
}

const offChain = (uri: string) => beginCell().storeUint(1, 8).storeStringTail(uri).endCell();

/** A master answering `get_jetton_data` with `content`. */
function masterWith(content: Cell): Jettons {
  const answer: TonGetMethodResult = {
    exitCode: 0,
    gasUsed: 0n,
    stack: [
      { type: 'num', value: 1_000_000n },
      { type: 'num', value: -1n },
      { type: 'slice', value: beginCell().storeUint(0, 2).endCell().toBoc().toString('base64') },
      { type: 'cell', value: content.toBoc().toString('base64') },
    ],
  };
  const toncenter: Pick<Toncenter, 'runGetMethod'> = { runGetMethod: async () => answer };
  return new Jettons(toncenter);
}

const MASTER = `0:${'ab'.repeat(32)}`;
const decimalsOf = async (content: Cell) => (await masterWith(content).master(MASTER))?.decimals;

describe("a jetton's decimals from its metadata", () => {
  it('reads them where the on-chain metadata names them, with or without a uri (USDT names 6)', async () => {
    expect(await decimalsOf(onChain({ name: 'Tether USD', symbol: 'USDT', decimals: '6' }))).toBe(6);
    expect(await decimalsOf(onChain({ uri: 'https://example.com/usdt.json', decimals: '6' }))).toBe(6);
  });

  it("takes TEP-64's default 9 only where the on-chain metadata is whole and names none", async () => {
    expect(await decimalsOf(onChain({ name: 'Demo', symbol: 'DMO' }))).toBe(9);
    expect(await decimalsOf(onChain({ name: 'Demo', uri: 'https://example.com/demo.json' }))).toBeNull();
    expect(await decimalsOf(offChain('https://example.com/demo.json'))).toBeNull();
  });

  it('leaves them unknown where the value does not read as 0-255', async () => {
    for (const value of ['six', '256', '-1', '1.5', '']) {
      expect(await decimalsOf(onChain({ name: 'Odd', decimals: value })), value).toBeNull();
    }
  });

  it('refuses an amount of a jetton whose decimals are unknown, and reports its transfers in base units', async () => {
    const description = await masterWith(offChain('ipfs://bafy')).master(MASTER);
    const refusal = (() => {
      try {
        amountDecimals(description!);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(422);
    expect((refusal as ApiError).errors).toEqual([
      {
        field: 'contractaddress',
        message: expect.stringMatching(/decimals are not in its on-chain metadata/),
      },
    ]);
    expect(reportedDecimals(description!)).toBe(0);
    expect(description?.uri).toBe('ipfs://bafy');
  });
});
