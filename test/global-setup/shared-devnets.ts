// Vitest global setup: the devnets a test project shares, each started once, when a test file first
// asks for it, and stopped after the last file. Test files reach them through
// ../helpers/shared-devnets.ts (inject). Each project that lists this setup gets its own set. Files on a
// shared devnet fund fresh addresses and read only what they sent; a reorg, a node fault or a restart
// needs a devnet of its own (in the conformance project each chain's devnet has one file, which may
// reorg it).
import type { TestProject } from 'vitest/node';
import { startBitcoinDevnet } from '../../devnets/bitcoin/index.ts';
import { startEvmDevnet } from '../../devnets/evm/index.ts';
import { MAINNET_GENESIS_HASH, startSolanaDevnet } from '../../devnets/solana/index.ts';
import { startTronDevnet } from '../../devnets/tron/index.ts';
import type { ChainName } from '../../src/chains/types.ts';
import type {
  SharedBitcoinDevnetInfo,
  SharedEvmDevnetInfo,
  SharedSolanaDevnetInfo,
  SharedTronDevnetInfo,
} from '../helpers/shared-devnets.ts';
import { SHARED_EVM_CHAINS } from '../helpers/shared-evm-chains.ts';
import {
  bitcoinOperations,
  type ControlledDevnet,
  evmOperations,
  solanaOperations,
  startDevnetControl,
  tronOperations,
} from './devnet-control.ts';

async function tronDevnet(): Promise<ControlledDevnet> {
  const devnet = await startTronDevnet({ blockIntervalMs: null, solidifyLag: 0 });
  const { url, faucet, tokens } = devnet;
  const info: SharedTronDevnetInfo = { url, faucet, tokens };
  return { info, operations: tronOperations(devnet), close: () => devnet.close() };
}

// Slots move only per transaction and advance(); the mainnet genesis hash, as the conformance gateway
// serves this devnet as Solana mainnet.
export async function solanaDevnet(): Promise<ControlledDevnet> {
  const devnet = await startSolanaDevnet({ slotIntervalMs: null, genesisHash: MAINNET_GENESIS_HASH });
  const { url, wsUrl, faucet, tokens } = devnet;
  const info: SharedSolanaDevnetInfo = { url, wsUrl, faucet, tokens };
  return { info, operations: solanaOperations(devnet), close: () => devnet.close() };
}

// Blocks only when a test mines them; Bitcoin mainnet's encodings and genesis hash, as the conformance
// gateway serves this devnet as Bitcoin mainnet.
async function bitcoinDevnet(): Promise<ControlledDevnet> {
  const devnet = await startBitcoinDevnet({ network: 'mainnet', blockIntervalMs: null });
  const { url, coreUrl } = devnet;
  const info: SharedBitcoinDevnetInfo = { url, coreUrl };
  return { info, operations: bitcoinOperations(devnet), close: () => devnet.close() };
}

async function evmDevnet(chain: ChainName): Promise<ControlledDevnet> {
  const devnet = await startEvmDevnet({ chain });
  const { network, chainId, url, wsUrl, tokens, faucetAccount, accounts } = devnet;
  const info: SharedEvmDevnetInfo = { chain, network, chainId, url, wsUrl, tokens, faucetAccount, accounts };
  return { info, operations: evmOperations(devnet), close: () => devnet.close() };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const control = await startDevnetControl({
    tron: tronDevnet,
    solana: solanaDevnet,
    bitcoin: bitcoinDevnet,
    ...Object.fromEntries(SHARED_EVM_CHAINS.map((chain) => [chain, () => evmDevnet(chain)])),
  });
  project.provide('devnetControlUrl', control.url);
  return () => control.close();
}
