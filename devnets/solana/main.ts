// CLI: npx tsx devnets/solana/main.ts [port]   (or SOLANA_DEVNET_PORT; default 8899 like solana-test-validator)
import { startSolanaDevnet } from './index.ts';

const port = Number(process.argv[2] ?? process.env['SOLANA_DEVNET_PORT'] ?? 8899);
const host = process.env['SOLANA_DEVNET_HOST'] ?? '127.0.0.1';
const interval = process.env['SOLANA_DEVNET_SLOT_MS'];
const skipEvery = process.env['SOLANA_DEVNET_SKIP_EVERY'];
const snapshotFile = process.env['SOLANA_DEVNET_SNAPSHOT_FILE'];
const saveMs = process.env['SOLANA_DEVNET_SAVE_MS'];

const devnet = await startSolanaDevnet({
  port,
  host,
  ...(interval ? { slotIntervalMs: interval === 'manual' ? null : Number(interval) } : {}),
  ...(skipEvery ? { skipEvery: Number(skipEvery) } : {}),
  ...(snapshotFile ? { snapshotFile } : {}),
  ...(saveMs ? { saveIntervalMs: Number(saveMs) } : {}),
  ...(process.env['SOLANA_DEVNET_GENESIS_HASH']
    ? { genesisHash: process.env['SOLANA_DEVNET_GENESIS_HASH'] }
    : {}),
});

console.log(`Solana devnet listening on ${devnet.url}`);
console.log(`faucet  ${devnet.faucet.address}  secret key ${devnet.faucet.secretKey}`);
console.log(`tokens  ${JSON.stringify(devnet.tokens)}`);

const stop = () => {
  devnet.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
