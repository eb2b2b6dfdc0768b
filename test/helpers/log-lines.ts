import { createLogger, type Logger } from '../../src/logger.ts';

/** A written log line as a test reads it back: its level, its message and whatever fields it carries. */
export type LogLine = Record<string, unknown> & { level: number; msg: string };

/** A logger at `level` whose JSON lines land, parsed, in `lines`, for a test to read what was logged. */
export function loggerToLines(level = 'info'): { lines: LogLine[]; logger: Logger } {
  const lines: LogLine[] = [];
  const logger = createLogger(level, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

/** The messages of the lines at one pino level (40 warn, 50 error), in the order they were written. */
export function messagesAt(lines: LogLine[], level: number): string[] {
  return lines.filter((line) => line.level === level).map((line) => line.msg);
}
