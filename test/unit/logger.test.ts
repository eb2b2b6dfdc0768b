import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
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

describe('the default destination (standard output)', () => {
  /** Runs `body` in a process of its own with the logger at `log`; answers the messages it printed, whatever its exit code. */
  function printed(body: string): Promise<string[]> {
    const script = `import { createLogger } from ${JSON.stringify(path.resolve('src/logger.ts'))};
      const log = createLogger('info');
      ${body}`;
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        (error, stdout) => {
          if (error !== null && typeof error.code !== 'number') reject(error);
          else
            resolve(
              stdout
                .split('\n')
                .filter((line) => line !== '')
                .map((line) => JSON.parse(line).msg),
            );
        },
      );
    });
  }

  it('writes every line logged before the process exits, by process.exit or an uncaught error', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`);
    await expect(
      printed(`for (let i = 0; i < 200; i++) log.info('line ' + i); process.exit(0);`),
    ).resolves.toEqual(lines);
    await expect(
      printed(`log.info('first'); setImmediate(() => { log.info('second'); throw new Error('x'); });`),
    ).resolves.toEqual(['first', 'second']);
  });

  it('writes a line while the process keeps running, without waiting for more lines', async () => {
    // The process ends by a kill once the line is in: it never exits on its own, which would flush.
    const child = spawn(process.execPath, [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { createLogger } from ${JSON.stringify(path.resolve('src/logger.ts'))};
       createLogger('info').info('alone'); setInterval(() => {}, 1000);`,
    ]);
    const line = await new Promise<string>((resolve) =>
      child.stdout.once('data', (chunk) => resolve(String(chunk))),
    );
    child.kill('SIGKILL');
    expect(JSON.parse(line).msg).toBe('alone');
  });
});
