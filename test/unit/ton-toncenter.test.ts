// The toncenter client's reading of answers a devnet never gives: malformed JSON shapes (a node error,
// not a crash), the indexer's refusals of a message, 409 for a contract that is no wallet, 404 for an
// account some deployments do not know, and the API key header.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { NodeClient } from '../../src/chains/node-client.ts';
import { TonNodeAnswerError } from '../../src/chains/ton/node-answer.ts';
import { Toncenter, TonMessageRefused } from '../../src/chains/ton/toncenter.ts';
import { listenUntilTestEnds } from '../helpers/test-server.ts';

interface Answer {
  status: number;
  body: string;
}

/** A toncenter stand-in: `answer` by path; every request's headers are kept. */
async function node(answer: (path: string) => Answer) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      const { status, body } = answer(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  const url = await listenUntilTestEnds(server);
  const client = new NodeClient({
    chain: 'ton',
    network: 'mainnet',
    endpoints: [{ url, headers: { 'X-API-Key': 'secret-key-1' } }],
    retries: 1,
    backoffBaseMs: 1,
  });
  return { toncenter: new Toncenter(client), seen, close: () => client.close() };
}

const ok = (value: unknown): Answer => ({ status: 200, body: JSON.stringify(value) });

const BLOCK = {
  workchain: -1,
  shard: '8000000000000000',
  seqno: 12,
  root_hash: Buffer.alloc(32, 1).toString('base64'),
  file_hash: Buffer.alloc(32, 2).toString('base64'),
  global_id: -239,
  gen_utime: '1700000000',
  start_lt: '100',
  end_lt: '101',
  prev_blocks: [{ workchain: -1, shard: '8000000000000000', seqno: 11 }],
};

describe('the toncenter client', () => {
  it('reads a block, sending the API key, and answers a malformed one as a node error', async () => {
    const { toncenter, seen, close } = await node((path) =>
      path.startsWith('/api/v3/masterchainInfo')
        ? ok({ first: BLOCK, last: { ...BLOCK, seqno: 'twelve' } })
        : ok({ blocks: [BLOCK] }),
    );
    try {
      expect(await toncenter.block(12)).toMatchObject({
        seqno: 12,
        globalId: -239,
        genUtime: 1700000000,
        endLt: 101n,
      });
      expect(seen[0]?.headers['x-api-key']).toBe('secret-key-1');
      await expect(toncenter.masterchainInfo()).rejects.toBeInstanceOf(TonNodeAnswerError);
    } finally {
      await close();
    }
  });

  it("answers a refused message with the node's words, not retried", async () => {
    const { toncenter, seen, close } = await node(() => ({
      status: 500,
      body: JSON.stringify({ error: 'cannot apply external message to current state' }),
    }));
    try {
      const refusal = toncenter.sendMessage('te6cc');
      await expect(refusal).rejects.toBeInstanceOf(TonMessageRefused);
      await expect(refusal).rejects.toThrow('cannot apply external message to current state');
      expect(seen).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it('takes 409 as no wallet, 404 as an unseen account, and a get-method stack in its forms', async () => {
    const { toncenter, close } = await node((path) => {
      if (path.startsWith('/api/v3/walletInformation'))
        return { status: 409, body: '{"error":"not a wallet"}' };
      if (path.startsWith('/api/v3/account')) return { status: 404, body: '{"error":"not found"}' };
      return ok({
        gas_used: 700,
        exit_code: 0,
        stack: [
          { type: 'num', value: '-0x1' },
          { type: 'cell', value: 'te6cckEBAQEAAgAAAEysuc0=' },
          { type: 'tuple', value: [] },
        ],
      });
    });
    try {
      expect(await toncenter.walletInformation('0:' + '1'.repeat(64))).toBeNull();
      expect(await toncenter.account('0:' + '1'.repeat(64))).toMatchObject({ balance: 0n, status: 'uninit' });
      expect(await toncenter.runGetMethod('0:' + '1'.repeat(64), 'get_jetton_data')).toEqual({
        gasUsed: 700n,
        exitCode: 0,
        stack: [
          { type: 'num', value: -1n },
          { type: 'cell', value: 'te6cckEBAQEAAgAAAEysuc0=' },
          { type: 'other', value: [] },
        ],
      });
    } finally {
      await close();
    }
  });
});
