/** The baseline server: a bare Fastify route answering an envelope, in its own process. Prints `{"url"}`. */
import Fastify from 'fastify';

const app = Fastify();
app.get('/bare', async () => ({ status: 200, ok: true, message: 'OK', data: { healthy: true } }));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url: `${url}/bare` })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
