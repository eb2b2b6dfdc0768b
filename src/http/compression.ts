import { PassThrough, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import {
  brotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzip,
  gzipSync,
} from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers compressed (Brotli or gzip) when the client asks with `Accept-Encoding`: the OpenAPI document,
 * the reference's and the dashboard's files, and any JSON answer large enough for it to pay. A small
 * answer (most of the API's) pays one length check and nothing else.
 */

/** Below this many bytes, compressing costs more time than the bytes it saves (a TCP packet or so). */
export const MIN_COMPRESSED_BYTES = 1_024;
/** Up to this size an answer is compressed on the loop (tens of microseconds); larger ones on the pool. */
const COMPRESS_ON_LOOP_BYTES = 64 * 1_024;
/** What compressed copies of unchanging files (by URL and ETag) may hold in memory at most. */
const FILE_CACHE_BYTES = 16 * 1_024 * 1_024;

type Encoding = 'br' | 'gzip';

/** Brotli at quality 5: near its best ratio for text at gzip's speed (11, its default, takes seconds a MiB). */
const BROTLI_OPTIONS = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};
const compressAsync = { br: promisify(brotliCompress), gzip: promisify(gzip) };

function compress(encoding: Encoding, body: Buffer | string): Buffer | Promise<Buffer> {
  const size = typeof body === 'string' ? body.length : body.byteLength;
  if (size <= COMPRESS_ON_LOOP_BYTES) {
    return encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body);
  }
  return encoding === 'br' ? compressAsync.br(body, BROTLI_OPTIONS) : compressAsync.gzip(body);
}

function compressingStream(encoding: Encoding) {
  return encoding === 'br' ? createBrotliCompress(BROTLI_OPTIONS) : createGzip();
}

const COMPRESSIBLE = /json|text\/|javascript|css|svg|xml/;

/**
 * The encoding to answer in: Brotli or gzip, whichever the client weighs more (Brotli on a tie), none
 * when it asks for neither (no header, `identity`, `q=0`).
 */
export function acceptedEncoding(header: string | string[] | undefined): Encoding | null {
  if (header === undefined) return null;
  const weights = new Map<string, number>();
  for (const item of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name = '', ...parameters] = item.split(';');
    const q = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name.trim().toLowerCase(), Number.isFinite(weight) ? weight : 0);
  }
  const any = weights.get('*') ?? 0;
  const br = weights.get('br') ?? any;
  const gz = weights.get('gzip') ?? weights.get('x-gzip') ?? any;
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}

function isReadable(payload: unknown): payload is Readable {
  return typeof payload === 'object' && payload !== null && typeof (payload as Readable).pipe === 'function';
}

/** The answer's size where it is known without reading it (a stream's from its Content-Length). */
function sizeOf(payload: unknown, reply: FastifyReply): number | undefined {
  if (typeof payload === 'string') return payload.length;
  if (Buffer.isBuffer(payload)) return payload.byteLength;
  const length = reply.getHeader('content-length');
  return length === undefined ? undefined : Number(length);
}

function addVary(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  const values = vary === undefined ? [] : String(vary).split(',');
  if (!values.some((value) => value.trim().toLowerCase() === 'accept-encoding')) {
    reply.header('vary', [...values.map((v) => v.trim()), 'Accept-Encoding'].join(', '));
  }
}

/** Compressed copies of the Buffers routes send again and again (the document, the dashboard's files). */
const bufferCopies = new WeakMap<Buffer, Partial<Record<Encoding, Promise<Buffer> | Buffer>>>();

function compressedBuffer(body: Buffer, encoding: Encoding): Buffer | Promise<Buffer> {
  let copies = bufferCopies.get(body);
  if (copies === undefined) {
    copies = {};
    bufferCopies.set(body, copies);
  }
  const copy = copies[encoding] ?? compress(encoding, body);
  copies[encoding] = copy;
  return copy;
}

/** Compressed copies of files streamed from disk (the reference's), by encoding, URL and ETag. */
class FileCopies {
  private readonly copies = new Map<string, Buffer>();
  private bytes = 0;

  get(key: string): Buffer | undefined {
    return this.copies.get(key);
  }

  keep(key: string, copy: Buffer): void {
    if (this.bytes + copy.byteLength > FILE_CACHE_BYTES || this.copies.has(key)) return;
    this.copies.set(key, copy);
    this.bytes += copy.byteLength;
  }
}

/** The stream compressed as it is sent; its compressed bytes kept for the next request when `key` is set. */
function compressedStream(
  source: Readable,
  encoding: Encoding,
  files: FileCopies,
  key: string | null,
): Readable {
  const compressed = source.pipe(compressingStream(encoding));
  source.on('error', (error) => compressed.destroy(error));
  if (key === null) return compressed;
  const chunks: Buffer[] = [];
  const out = new PassThrough();
  compressed.on('data', (chunk: Buffer) => chunks.push(chunk));
  compressed.on('end', () => files.keep(key, Buffer.concat(chunks)));
  compressed.on('error', (error) => out.destroy(error));
  return compressed.pipe(out);
}

async function compressAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  files: FileCopies,
): Promise<unknown> {
  if (payload === null || payload === undefined || reply.hasHeader('content-encoding')) return payload;
  const status = reply.statusCode;
  if (status < 200 || status === 204 || status === 206 || status === 304) return payload;
  if (!COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? ''))) return payload;
  addVary(reply);
  const encoding = acceptedEncoding(request.headers['accept-encoding']);
  if (encoding === null) return payload;
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  if (Buffer.isBuffer(payload)) return compressedBuffer(payload, encoding);
  if (typeof payload === 'string') return compress(encoding, payload);
  if (!isReadable(payload)) return payload;
  const etag = reply.getHeader('etag');
  const key = etag === undefined || request.method !== 'GET' ? null : `${encoding} ${request.url} ${etag}`;
  const kept = key === null ? undefined : files.get(key);
  if (kept !== undefined) {
    payload.destroy();
    return kept;
  }
  return compressedStream(payload, encoding, files, key);
}

/** Registered after every hook that reads or keeps an answer's body (idempotency keeps it uncompressed). */
export function registerCompression(app: FastifyInstance): void {
  const files = new FileCopies();
  // A callback hook, not an async one: the small answers most requests give pass on without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const size = sizeOf(payload, reply);
    if (size !== undefined && size < MIN_COMPRESSED_BYTES) return done(null, payload);
    compressAnswer(request, reply, payload, files).then(
      (answer) => done(null, answer),
      (error: Error) => done(error),
    );
  });
}
