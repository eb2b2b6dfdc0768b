import { describe, expect, it } from 'vitest';
import { createLogger, isoTimeOncePerMillisecond } from '../../src/logger.ts';

function capture() {
  const lines: string[] = [];
  return { lines, logger: createLogger('info', { write: (line: string) => lines.push(line) }) };
}

/** An object graph of unbounded fan-out: many keys, each a wide and deep subtree, and a cycle. */
function wideGraph(): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (let i = 0; i < 50_000; i++) root[`k${i}`] = { a: [1, 2, 3], b: { c: { d: { e: 'deep' } } } };
  root['self'] = root;
  return root;
}

describe('log lines', () => {
  it('copy at most a bounded part of any object, error or reply they are given', () => {
    const { lines, logger } = capture();
    const error = Object.assign(new Error('boom with swy_abcdefghijklmnopqrstuvwxyz'), {
      parts: wideGraph(),
      code: 'FST_FIELDS_LIMIT',
      statusCode: 413,
    });
    logger.info(
      { err: error, res: { statusCode: 413, server: wideGraph() }, body: wideGraph() },
      'request errored',
    );
    logger.warn(wideGraph(), `text ${'x'.repeat(100_000)}`);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThan(16_384);
    const first = JSON.parse(lines[0]!);
    expect(first.err).toMatchObject({ type: 'Error', code: 'FST_FIELDS_LIMIT', statusCode: 413 });
    expect(first.err.message).toBe('boom with [redacted]');
    expect(first.err.parts).toBeUndefined();
    expect(first.res).toEqual({ statusCode: 413 });
  });

  it('redact secret fields and secret-looking text at any depth kept', () => {
    const { lines, logger } = capture();
    logger.info({ body: { password: 'hunter22', nested: { privateKey: 'k' } }, note: 'Bearer abc.def' }, 'x');
    expect(lines[0]).not.toMatch(/hunter22|"k"|abc\.def/);
  });

  it('write what a request line needs', () => {
    const { lines, logger } = capture();
    logger.info(
      { req: { method: 'GET', url: '/healthz?token=swy_abcdefghijkl', id: 'r1', ip: '127.0.0.1' } },
      'in',
    );
    expect(JSON.parse(lines[0]!).req).toEqual({
      method: 'GET',
      url: '/healthz?token=[redacted]',
      id: 'r1',
      remoteAddress: '127.0.0.1',
    });
  });
});

describe('the timestamp', () => {
  it('is the ISO time of the current millisecond, as pino writes it', () => {
    const before = Date.now();
    const time = isoTimeOncePerMillisecond();
    const after = Date.now();
    const written = /^,"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"$/.exec(time)?.[1];
    expect(written).toBeDefined();
    const at = Date.parse(written!);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
  });
});
