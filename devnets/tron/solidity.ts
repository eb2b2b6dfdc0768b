// Compiles the devnet's own Solidity sources with solc-js. solc-js takes seconds to load, so the
// output is cached in memory and under os.tmpdir() keyed by a hash of compiler, settings and sources.
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';

export interface SolcAbiParam {
  name: string;
  type: string;
  indexed?: boolean;
  components?: SolcAbiParam[];
}

export interface SolcAbiItem {
  type: string;
  name?: string;
  inputs?: SolcAbiParam[];
  outputs?: SolcAbiParam[];
  stateMutability?: string;
  anonymous?: boolean;
}

export interface CompiledContract {
  name: string;
  abi: SolcAbiItem[];
  bytecode: Uint8Array;
  runtime: Uint8Array;
}

export const CONTRACTS_DIR = fileURLToPath(new URL('../contracts/', import.meta.url));

// petersburg: TVM has no PUSH0 requirement and its energy table matches the pre-Istanbul EVM.
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'petersburg',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
};

interface CachedOutput {
  contracts: { name: string; abi: SolcAbiItem[]; bytecode: string; runtime: string }[];
}

const memory = new Map<string, Promise<Record<string, CompiledContract>>>();

function solcVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('solc/package.json') as { version: string }).version;
}

async function readSources(dir: string): Promise<Record<string, { content: string }>> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sol')).sort();
  const sources: Record<string, { content: string }> = {};
  for (const f of files) sources[f] = { content: await readFile(join(dir, f), 'utf8') };
  return sources;
}

async function runSolc(sources: Record<string, { content: string }>): Promise<CachedOutput> {
  const solc = (await import('solc')).default as { compile(input: string): string };
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<
      string,
      Record<
        string,
        { abi: SolcAbiItem[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
      >
    >;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contracts: CachedOutput['contracts'] = [];
  for (const file of Object.values(output.contracts ?? {})) {
    for (const [name, c] of Object.entries(file)) {
      if (!c.evm.bytecode.object) continue;
      contracts.push({
        name,
        abi: c.abi,
        bytecode: c.evm.bytecode.object,
        runtime: c.evm.deployedBytecode.object,
      });
    }
  }
  return { contracts };
}

async function compileUncached(dir: string): Promise<Record<string, CompiledContract>> {
  const sources = await readSources(dir);
  const key = bytesToHex(
    sha256(utf8ToBytes(JSON.stringify({ v: solcVersion(), s: SETTINGS, sources }))),
  ).slice(0, 32);
  const cacheDir = join(tmpdir(), 'switchyard-tron-solc');
  const cacheFile = join(cacheDir, `${key}.json`);
  let out: CachedOutput;
  try {
    out = JSON.parse(await readFile(cacheFile, 'utf8')) as CachedOutput;
  } catch {
    out = await runSolc(sources);
    await mkdir(cacheDir, { recursive: true });
    // Write-then-rename so a concurrent start never reads half a file.
    const tmp = `${cacheFile}.${process.pid}.${Date.now()}`;
    await writeFile(tmp, JSON.stringify(out));
    await rename(tmp, cacheFile);
  }
  const result: Record<string, CompiledContract> = {};
  for (const c of out.contracts) {
    result[c.name] = {
      name: c.name,
      abi: c.abi,
      bytecode: hexToBytes(c.bytecode),
      runtime: hexToBytes(c.runtime),
    };
  }
  return result;
}

export function compileContracts(dir = CONTRACTS_DIR): Promise<Record<string, CompiledContract>> {
  let p = memory.get(dir);
  if (!p) {
    p = compileUncached(dir);
    memory.set(dir, p);
    p.catch(() => memory.delete(dir));
  }
  return p;
}
