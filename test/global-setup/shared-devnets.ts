// Vitest global setup: the devnets a test project shares, started once before its test files run and
// stopped after the last one. Test files reach them through ../helpers/shared-devnets.ts (inject).
// Each project that lists this setup gets its own set. Each chain's devnet is driven by one test file at
// a time (the conformance file of that chain), which is why that file may reorg it; a test that would
// share a devnet with others and needs a reorg, a node fault or a restart starts a devnet of its own.
import type { TestProject } from 'vitest/node';
import { type EvmDevnet, startEvmDevnet } from '../../devnets/evm/index.ts';
import { startTronDevnet } from '../../devnets/tron/index.ts';
import type { EvmChainName } from '../../src/chains/evm/chains.ts';
import type { SharedDevnetsInfo, SharedEvmDevnetInfo } from '../helpers/shared-devnets.ts';
import { evmOperations, startDevnetControl, tronOperations } from './devnet-control.ts';

const EVM_CHAINS: EvmChainName[] = ['ethereum', 'bsc', 'polygon', 'arbitrum'];

function evmInfo(devnet: EvmDevnet): SharedEvmDevnetInfo {
  const { chain, network, chainId, url, tokens, faucetAccount, accounts } = devnet;
  return { chain, network, chainId, url, tokens, faucetAccount, accounts };
}

type Settled<T> = { ok: true; devnet: T } | { ok: false; error: unknown };

const settle = <T>(starting: Promise<T>): Promise<Settled<T>> =>
  starting.then(
    (devnet) => ({ ok: true, devnet }),
    (error: unknown) => ({ ok: false, error }),
  );

const startedOnes = <T>(settled: Settled<T>[]): T[] => settled.flatMap((s) => (s.ok ? [s.devnet] : []));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [tronStart, evmStarts] = await Promise.all([
    settle(startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 })),
    Promise.all(EVM_CHAINS.map((chain) => settle(startEvmDevnet({ chain })))),
  ]);
  const tron = startedOnes([tronStart]);
  const evm = startedOnes(evmStarts);
  const closeAll = () => Promise.all([...tron, ...evm].map((devnet) => devnet.close()));
  const failed = [tronStart, ...evmStarts].find((s) => !s.ok);
  if (failed !== undefined || tronStart.ok === false) {
    await closeAll();
    throw failed && !failed.ok ? failed.error : new Error('the Tron devnet did not start');
  }
  const control = await startDevnetControl({
    tron: tronOperations(tronStart.devnet),
    ...Object.fromEntries(evm.map((devnet) => [devnet.chain, evmOperations(devnet)])),
  });
  const { url, faucet, tokens } = tronStart.devnet;
  const info: SharedDevnetsInfo = {
    controlUrl: control.url,
    tron: { url, faucet, tokens },
    evm: evm.map(evmInfo),
  };
  project.provide('sharedDevnets', info);
  return async () => {
    await control.close();
    await closeAll();
  };
}
