// How the devnets' HTTP fronts read a request body: whole, up to the node's limit.
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {}

/**
 * The body as text; one over `maxBytes` is drained rather than reset, so the client reads the node's
 * answer (HTTP 413), and rejected with BodyTooLarge.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('end', () =>
      size > maxBytes ? reject(new BodyTooLarge()) : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}
