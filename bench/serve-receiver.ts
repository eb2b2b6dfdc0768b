/**
 * A webhook receiver in its own process, as a user's server is: keeps connections alive, answers 200 at
 * once, and counts what it got (`GET /count` answers the count). Prints `{"url"}` once it listens.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
const server = http.createServer({ keepAliveTimeout: 30_000 }, (request, response) => {
  if (request.method === 'GET' && request.url === '/count') {
    response.end(String(received));
    return;
  }
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(200).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/hook` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
