import { readFileSync } from 'node:fs';
import { parseAbi } from 'viem';
import { describe, expect, it } from 'vitest';
import { ERC20_ABI, ERC721_ABI, KNOWN_ERRORS_ABI } from '../../src/chains/evm/abi.ts';
import { AGGREGATOR_V3_ABI } from '../../src/prices/chainlink.ts';

/** The Solidity signatures the constants are written from: the comment above each entry, in order. */
function signaturesIn(file: string): string[] {
  return readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
    .split('\n')
    .map((line) => /^\s*\/\/ ((?:function|event|error) .+)$/.exec(line)?.[1])
    .filter((signature) => signature !== undefined);
}

describe('the ABIs written as JSON constants (so that viem loads only when first used)', () => {
  it('are what viem parses from the signature written above each entry', () => {
    const written = signaturesIn('src/chains/evm/abi.ts');
    expect(written.length).toBe(ERC20_ABI.length + ERC721_ABI.length + KNOWN_ERRORS_ABI.length);
    expect([...ERC20_ABI, ...ERC721_ABI, ...KNOWN_ERRORS_ABI]).toEqual(parseAbi(written));
    expect([...AGGREGATOR_V3_ABI]).toEqual(parseAbi(signaturesIn('src/prices/chainlink.ts')));
  });
});
