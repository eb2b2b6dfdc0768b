/**
 * The sends' node over toncenter: the indexer's refusal of a message is translated at the boundary, a
 * seqno or deadline refusal into one the send signs again for, any other into a 422 in the node's words.
 * A node that refuses is a fault the devnet cannot cause (it queues every message), so a small HTTP
 * server answers as toncenter does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TonAdapter } from '../../src/chains/ton/adapter.ts';
import { tonSendNode } from '../../src/chains/ton/send-node.ts';
import { TonSeqnoTaken } from '../../src/chains/ton/seqno.ts';
import { ApiError } from '../../src/errors.ts';

/** What the stub answers `POST /api/v3/message` with next. */
let refusal = '';
let server: http.Server;
let adapter: TonAdapter;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: refusal }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  adapter = new TonAdapter({ network: 'mainnet', endpoints: [{ url, headers: {} }], retries: 0 });
});

afterAll(async () => {
  await adapter.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function sent(words: string): Promise<unknown> {
  refusal = words;
  return tonSendNode(adapter)
    .sendMessage('te6cckEBAQEAAgAAAEysuc0=')
    .then(() => null)
    .catch((error: unknown) => error);
}

describe("the node's refusals of a message", () => {
  it('a seqno or deadline refusal is one a fresh signature mends', async () => {
    for (const exitCode of [133, 136]) {
      const error = await sent(
        `cannot apply external message to current state : External message was not accepted\nCannot run message on account: inbound external message rejected by transaction: exitcode=${exitCode}, steps=20, gas_used=0`,
      );
      expect(error).toBeInstanceOf(TonSeqnoTaken);
      expect((error as ApiError).message).toMatch(`exitcode=${exitCode}`);
    }
  });

  it('any other refusal is a 422 in the node’s words', async () => {
    const error = await sent(
      'cannot apply external message to current state : External message was not accepted\nCannot run message on account: inbound external message rejected by transaction: exitcode=135, steps=31',
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(TonSeqnoTaken);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).message).toMatch(
      /^The node refused the message: cannot apply external message/,
    );
  });
});
