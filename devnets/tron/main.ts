// CLI: npx tsx devnets/tron/main.ts [port]   (or TRON_DEVNET_PORT; default 8090 like java-tron)
import { startTronDevnet } from './index.ts';

const port = Number(process.argv[2] ?? process.env['TRON_DEVNET_PORT'] ?? 8090);
const host = process.env['TRON_DEVNET_HOST'] ?? '127.0.0.1';
const interval = process.env['TRON_DEVNET_BLOCK_MS'];
const lag = process.env['TRON_DEVNET_SOLIDIFY_LAG'];

const devnet = await startTronDevnet({
  port,
  host,
  ...(interval ? { blockIntervalMs: interval === 'manual' ? null : Number(interval) } : {}),
  ...(lag ? { solidifyLag: Number(lag) } : {}),
});

console.log(`Tron devnet listening on ${devnet.url}`);
console.log(`faucet  ${devnet.faucet.address}  key ${devnet.faucet.privateKey}`);
console.log(`tokens  ${JSON.stringify(devnet.tokens)}`);

const stop = () => {
  devnet.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
