import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

/**
 * A request's logger, made on every request but a child of the gateway's logger only when something logs
 * through it: most requests log nothing but their request line, which request-line.ts writes from the
 * parent and `boundText` without a child. Fastify makes a pino child per request otherwise.
 */
export class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
  ) {}

  /** The bindings as pino appends them to its parent's in a child's lines (`,"requestId":"…"`). */
  get boundText(): string {
    let text = '';
    for (const key in this.bindings) text += `,${JSON.stringify(key)}:${JSON.stringify(this.bindings[key])}`;
    return text;
  }

  get level(): LevelWithSilentOrString {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.#real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#call('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#call('error', args);
  }

  warn(...args: unknown[]): void {
    this.#call('warn', args);
  }

  info(...args: unknown[]): void {
    this.#call('info', args);
  }

  debug(...args: unknown[]): void {
    this.#call('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#call('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }

  #call(method: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const real = this.#real();
    Reflect.apply(real[method], real, args);
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings);
    return this.#child;
  }
}

/**
 * Fastify's factory of request loggers: a lazy RequestLogger, or at once a child where the route sets
 * options of its own (a log level, serializers), which only a real child applies.
 */
export function lazyRequestLoggers(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return Object.keys(options).length === 0
    ? new RequestLogger(logger, bindings)
    : logger.child(bindings, options);
}
