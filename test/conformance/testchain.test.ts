// The conformance suite on an EVM chain no file of the gateway names: it exists only in the chain file
// this test writes and gives the gateway as EVM_CHAINS_FILE, so a new EVM chain is configuration alone.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { startEvmDevnet } from '../../devnets/evm/index.ts';
import { evmDriver } from './drivers/evm.ts';
import { runConformance } from './scenarios.ts';

const CHAIN = 'testchain';
const network = (chainId: number, name: string) => ({
  chainId,
  name,
  minPriorityFeeWei: '0',
  finality: { finalityDepth: 64, reorgDepth: 64 },
  endpoints: [],
});
const file = path.join(mkdtempSync(path.join(tmpdir(), 'testchain-')), 'evm-chains.json');
writeFileSync(
  file,
  JSON.stringify({
    chains: {
      [CHAIN]: {
        nativeSymbol: 'TST',
        priceSymbol: 'ETH',
        feeModel: 'eip1559',
        priorityFee: 'market',
        tokenSegments: { fungible: 'erc20', nft: 'erc721' },
        networks: {
          mainnet: network(3_133_701, 'Test chain'),
          testnet: network(3_133_702, 'Test chain testnet'),
        },
      },
    },
  }),
);

// This process serves the chains of EVM_CHAINS_FILE as the gateway's does; the shared module cache of the
// project's other files gets the shipped chains back afterwards.
const before = process.env['EVM_CHAINS_FILE'];
process.env['EVM_CHAINS_FILE'] = file;
const devnet = await startEvmDevnet({ chain: CHAIN });
afterAll(async () => {
  await devnet.close();
  if (before === undefined) delete process.env['EVM_CHAINS_FILE'];
  else process.env['EVM_CHAINS_FILE'] = before;
});

const driver = evmDriver(CHAIN, devnet);
runConformance({ ...driver, gatewayEnv: { ...driver.gatewayEnv, EVM_CHAINS_FILE: file } });
