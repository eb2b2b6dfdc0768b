import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { writeRequestLine } from '../../src/http/request-line.ts';
import { lazyRequestLoggers, RequestLogger } from '../../src/http/request-logger.ts';
import { createLogger, type LogFormat } from '../../src/logger.ts';

const FIELDS = {
  method: 'GET',
  route: '/api/v2/prices/:symbol',
  status: 200,
  durationMs: 0.42,
  userId: '54f37c8c-bf04-4c30-b6de-897d61ff1c5b',
};

const BINDINGS = { requestId: '0b8e4f0a-3c1d-4b7e-9a52-6f1e2d3c4b01' };

/** The gateway's logger writing into `lines`, and a request's child of it as pino makes one. */
function loggers(format: LogFormat, lines: string[], level = 'info') {
  const logger = createLogger(level, { write: (line: string) => lines.push(line) }, format);
  return { logger, child: logger.child(BINDINGS) };
}

function requestLogger(format: LogFormat, lines: string[], level = 'info'): FastifyBaseLogger {
  return loggers(format, lines, level).child;
}

/**
 * Both ways of writing the line (directly, from a pino child or from a request logger not made a child
 * yet; and pino's own), with the clock's reading taken out: they run a moment apart.
 */
function bothWays(format: LogFormat, fields: typeof FIELDS, lazy = false): { fast: string; generic: string } {
  const lines: string[] = [];
  const { logger, child: log } = loggers(format, lines);
  expect(writeRequestLine(lazy ? lazyRequestLoggers(logger, BINDINGS, {}) : log, fields)).toBe(true);
  const { userId, ...rest } = fields;
  log.info(userId ? fields : rest, 'request');
  const timeless = (line: string | undefined) =>
    String(line)
      .replace(/"time":"[^"]*"/, '"time":""')
      .replace(/\d\d:\d\d:\d\d\.\d\d\d/, '');
  return { fast: timeless(lines[0]), generic: timeless(lines[1]) };
}

describe('the request line written directly', () => {
  it('is the line pino writes for the same fields, byte for byte', () => {
    const { fast, generic } = bothWays('json', FIELDS);
    expect(fast).toBe(generic);
    expect(JSON.parse(fast)).toMatchObject({ level: 30, service: 'switchyard', msg: 'request', ...FIELDS });
  });

  it('is the same line from a request logger not yet made a child (the parent and the bound request id)', () => {
    for (const format of ['json', 'pretty'] as const) {
      const { fast, generic } = bothWays(format, FIELDS, true);
      expect(fast).toBe(generic);
    }
  });

  it('leaves out the user id on a public route, and escapes a path as JSON', () => {
    const { fast, generic } = bothWays('json', { ...FIELDS, userId: '', route: '/a"b\\c\u0001é' });
    expect(fast).toBe(generic);
    expect(JSON.parse(fast)).not.toHaveProperty('userId');
  });

  it('writes a non-finite duration as pino does', () => {
    const { fast, generic } = bothWays('json', { ...FIELDS, durationMs: Number.NaN });
    expect(fast).toBe(generic);
  });

  it('goes through the pretty format like any other line', () => {
    const { fast, generic } = bothWays('pretty', FIELDS);
    expect(fast).toBe(generic);
    expect(fast).toContain('request');
  });

  it('writes nothing when the level leaves info lines out', () => {
    const lines: string[] = [];
    expect(writeRequestLine(requestLogger('json', lines, 'warn'), FIELDS)).toBe(true);
    expect(lines).toEqual([]);
  });

  it('declines a logger whose lines it would not reproduce (a mixin), so the caller logs the generic way', () => {
    const lines: string[] = [];
    const logger = pino({ mixin: () => ({ extra: 1 }) }, { write: (line: string) => lines.push(line) });
    expect(writeRequestLine(logger, FIELDS)).toBe(false);
    expect(lines).toEqual([]);
  });
});

describe('the request logger', () => {
  it('becomes a child bound to the request id when something logs through it', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) }, 'json');
    const log = lazyRequestLoggers(logger, BINDINGS, {});
    expect(log).toBeInstanceOf(RequestLogger);
    log.warn({ status: 503 }, 'node unreachable');
    log.debug('below the level');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 40, ...BINDINGS, status: 503, msg: 'node unreachable' }),
    ]);
    expect(log.child({ chain: 'tron' }).level).toBe('info');
  });

  it('is a child at once where the route sets a log level of its own', () => {
    const logger = createLogger('info', { write: () => undefined }, 'json');
    const log = lazyRequestLoggers(logger, BINDINGS, { level: 'warn' });
    expect(log).not.toBeInstanceOf(RequestLogger);
    expect(log.level).toBe('warn');
  });
});
