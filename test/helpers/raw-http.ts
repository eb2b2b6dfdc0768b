// Bytes written to the gateway's socket as they are, for requests no HTTP client would send.
import net from 'node:net';

/**
 * Writes `bytes` to the server at `baseUrl` and reads the whole answer until the server closes: the
 * status line's code (0 when it closed without one) and the body. `halfClose` ends the writing side
 * after the bytes; without it the socket stays open, since a half-closed one may be dropped before the
 * answer is written.
 */
export function rawHttpExchange(
  baseUrl: string,
  bytes: string | Buffer,
  { halfClose = false } = {},
): Promise<{ status: number; body: string }> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () =>
      halfClose ? socket.end(bytes) : socket.write(bytes),
    );
    let response = '';
    socket.on('data', (chunk) => {
      response += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0),
        body: response.slice(response.indexOf('\r\n\r\n') + 4),
      }),
    );
  });
}
