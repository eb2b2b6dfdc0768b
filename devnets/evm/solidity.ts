// Compiles the EVM devnet's Solidity sources (devnets/contracts/ERC20Token.sol, ERC721Token.sol) with
// solc-js. solc-js takes seconds to load, so the output is cached in memory and under os.tmpdir(),
// keyed by a hash of compiler version, settings and sources.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Abi, Hex } from 'viem';

export const EVM_CONTRACTS_DIR = fileURLToPath(new URL('../contracts/', import.meta.url));
export const EVM_CONTRACT_FILES = ['ERC20Token.sol', 'ERC721Token.sol'] as const;

export interface CompiledEvmContract {
  name: string;
  abi: Abi;
  bytecode: Hex;
}

// paris: no PUSH0, so the bytecode runs on any hardfork a devnet or chain here is configured with.
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'paris',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

const memory = new Map<string, Promise<Record<string, CompiledEvmContract>>>();

export function compileEvmContracts(dir = EVM_CONTRACTS_DIR): Promise<Record<string, CompiledEvmContract>> {
  let compiled = memory.get(dir);
  if (!compiled) {
    compiled = compileCached(dir);
    memory.set(dir, compiled);
    compiled.catch(() => memory.delete(dir));
  }
  return compiled;
}

async function compileCached(dir: string): Promise<Record<string, CompiledEvmContract>> {
  const sources: Record<string, { content: string }> = {};
  for (const file of EVM_CONTRACT_FILES) sources[file] = { content: await readFile(join(dir, file), 'utf8') };
  const version = (createRequire(import.meta.url)('solc/package.json') as { version: string }).version;
  const key = bytesToHex(sha256(utf8ToBytes(JSON.stringify({ version, SETTINGS, sources })))).slice(0, 32);
  const cacheDir = join(tmpdir(), 'switchyard-evm-solc');
  const cacheFile = join(cacheDir, `${key}.json`);
  try {
    return JSON.parse(await readFile(cacheFile, 'utf8')) as Record<string, CompiledEvmContract>;
  } catch {
    const compiled = await runSolc(sources);
    await mkdir(cacheDir, { recursive: true });
    // Write-then-rename so a concurrent start never reads half a file.
    const partial = `${cacheFile}.${process.pid}.${Date.now()}`;
    await writeFile(partial, JSON.stringify(compiled));
    await rename(partial, cacheFile);
    return compiled;
  }
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

async function runSolc(
  sources: Record<string, { content: string }>,
): Promise<Record<string, CompiledEvmContract>> {
  const solc = (await import('solc')).default as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })),
  ) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const compiled: Record<string, CompiledEvmContract> = {};
  for (const file of Object.values(output.contracts ?? {})) {
    for (const [name, contract] of Object.entries(file)) {
      if (!contract.evm.bytecode.object) continue;
      compiled[name] = { name, abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
    }
  }
  return compiled;
}
