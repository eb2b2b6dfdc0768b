// CLI: npx tsx devnets/bitcoin/main.ts [port]   (or BITCOIN_DEVNET_PORT; default 3002, electrs' Esplora port)
// BITCOIN_DEVNET_NETWORK (regtest), BITCOIN_DEVNET_BLOCK_MS (manual), BITCOIN_DEVNET_SNAPSHOT_FILE,
// BITCOIN_DEVNET_SAVE_MS.
import { type DevnetBitcoinNetwork, startBitcoinDevnet } from './index.ts';
import { NETWORKS } from './networks.ts';

const port = Number(process.argv[2] ?? process.env['BITCOIN_DEVNET_PORT'] ?? 3002);
const network = process.env['BITCOIN_DEVNET_NETWORK'] ?? 'regtest';
if (!Object.hasOwn(NETWORKS, network)) {
  console.error(`BITCOIN_DEVNET_NETWORK must be one of ${Object.keys(NETWORKS).join(', ')}`);
  process.exit(2);
}
const blockMs = process.env['BITCOIN_DEVNET_BLOCK_MS'];
const snapshotFile = process.env['BITCOIN_DEVNET_SNAPSHOT_FILE'];
const saveMs = process.env['BITCOIN_DEVNET_SAVE_MS'];

const devnet = await startBitcoinDevnet({
  port,
  network: network as DevnetBitcoinNetwork,
  ...(blockMs && blockMs !== 'manual' ? { blockIntervalMs: Number(blockMs) } : {}),
  ...(snapshotFile ? { snapshotFile } : {}),
  ...(saveMs ? { saveIntervalMs: Number(saveMs) } : {}),
});

console.log(`Bitcoin devnet (${devnet.network}) at height ${devnet.height()}`);
console.log(`Esplora   ${devnet.url}`);
console.log(`Core RPC  ${devnet.coreUrl}`);
console.log(`faucet    ${devnet.faucetAddress}  private key ${devnet.faucetPrivateKey}`);

const stop = () => {
  devnet.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
