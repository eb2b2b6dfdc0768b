// CLI: npx tsx devnets/ton/main.ts [port]   (or TON_DEVNET_PORT; default 8081)
import { startTonDevnet } from './index.ts';

const port = Number(process.argv[2] ?? process.env['TON_DEVNET_PORT'] ?? 8081);
const host = process.env['TON_DEVNET_HOST'] ?? '127.0.0.1';
const blockMs = process.env['TON_DEVNET_BLOCK_MS'];
const globalId = process.env['TON_DEVNET_GLOBAL_ID'];
const snapshotFile = process.env['TON_DEVNET_SNAPSHOT_FILE'];
const saveMs = process.env['TON_DEVNET_SAVE_MS'];
const refuseUnaccepted = process.env['TON_DEVNET_REFUSE_UNACCEPTED'] === '1';

const devnet = await startTonDevnet({
  port,
  host,
  ...(blockMs ? { blockIntervalMs: blockMs === 'manual' ? null : Number(blockMs) } : {}),
  ...(globalId ? { globalId: Number(globalId) } : {}),
  ...(snapshotFile ? { snapshotFile } : {}),
  ...(saveMs ? { saveIntervalMs: Number(saveMs) } : {}),
  refuseUnacceptedMessages: refuseUnaccepted,
});

console.log(
  `TON devnet listening on ${devnet.url} (toncenter API v3 under /api/v3/, global_id ${devnet.globalId})`,
);
console.log(`faucet  ${devnet.faucet.address}  seed ${devnet.faucet.secretKey}`);
console.log(`tokens  ${JSON.stringify(devnet.tokens)}`);

const stop = () => {
  devnet.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
