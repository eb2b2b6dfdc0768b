// The PubSub WebSocket endpoint, as much of it as clients need to confirm a transaction:
// signatureSubscribe / signatureUnsubscribe (and slotSubscribe), over a small RFC 6455 text-frame server
// on the HTTP server's upgrade (so the same port serves both; point web3.js's wsEndpoint at it).
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SolanaChain } from '../chain.ts';
import { isObject, type Json, stringifyJson } from '../json.ts';
import { statusOf } from './methods.ts';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const LEVELS = ['processed', 'confirmed', 'finalized'];

interface Sub {
  id: number;
  socket: Duplex;
  kind: 'signature' | 'slot';
  signature?: string;
  commitment?: number;
  lastSlot?: bigint;
}

function frame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n]) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (n >= 126 && n < 65536) {
    head[0] = 0x81;
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else if (n >= 65536) {
    head[0] = 0x81;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Splits complete client frames off `buf`; returns [opcode, payload] pairs and the rest. */
function readFrames(buf: Buffer): { frames: [number, Buffer][]; rest: Buffer } {
  const frames: [number, Buffer][] = [];
  let pos = 0;
  for (;;) {
    if (buf.length - pos < 2) break;
    const b0 = buf[pos] as number;
    const b1 = buf[pos + 1] as number;
    let len = b1 & 0x7f;
    let at = pos + 2;
    if (len === 126) {
      if (buf.length < at + 2) break;
      len = buf.readUInt16BE(at);
      at += 2;
    } else if (len === 127) {
      if (buf.length < at + 8) break;
      len = Number(buf.readBigUInt64BE(at));
      at += 8;
    }
    const masked = (b1 & 0x80) !== 0;
    const mask = masked ? buf.subarray(at, at + 4) : null;
    if (masked) at += 4;
    if (buf.length < at + len) break;
    const payload = Buffer.from(buf.subarray(at, at + len));
    if (mask)
      for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
    frames.push([b0 & 0x0f, payload]);
    pos = at + len;
  }
  return { frames, rest: buf.subarray(pos) };
}

export function attachPubSub(server: Server, chain: SolanaChain): () => void {
  const subs = new Map<number, Sub>();
  const sockets = new Set<Duplex>();
  let nextId = 1;

  const send = (socket: Duplex, msg: Json) => {
    if (!socket.destroyed) socket.write(frame(stringifyJson(msg)));
  };

  const handle = (socket: Duplex, text: string) => {
    let call: unknown;
    try {
      call = JSON.parse(text);
    } catch {
      send(socket, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
      return;
    }
    if (!isObject(call)) return;
    const id = (call['id'] ?? null) as Json;
    const params = Array.isArray(call['params']) ? call['params'] : [];
    const cfg = isObject(params[1]) ? params[1] : {};
    switch (call['method']) {
      case 'signatureSubscribe': {
        const sub: Sub = {
          id: nextId++,
          socket,
          kind: 'signature',
          signature: String(params[0]),
          commitment: Math.max(0, LEVELS.indexOf(String(cfg['commitment'] ?? 'finalized'))),
        };
        subs.set(sub.id, sub);
        send(socket, { jsonrpc: '2.0', result: sub.id, id });
        return;
      }
      case 'slotSubscribe': {
        const sub: Sub = { id: nextId++, socket, kind: 'slot', lastSlot: chain.slot };
        subs.set(sub.id, sub);
        send(socket, { jsonrpc: '2.0', result: sub.id, id });
        return;
      }
      case 'signatureUnsubscribe':
      case 'slotUnsubscribe':
        send(socket, { jsonrpc: '2.0', result: subs.delete(Number(params[0])), id });
        return;
      default:
        send(socket, { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id });
    }
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const key = req.headers['sec-websocket-key'];
    if (typeof key !== 'string') {
      socket.destroy();
      return;
    }
    const accept = createHash('sha1')
      .update(key + WS_GUID)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    sockets.add(socket);
    let buf: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const { frames, rest } = readFrames(Buffer.concat([buf, chunk]));
      buf = rest;
      for (const [op, payload] of frames) {
        if (op === 1) handle(socket, payload.toString('utf8'));
        else if (op === 9)
          socket.write(Buffer.concat([Buffer.from([0x8a, payload.length]), new Uint8Array(payload)]));
        else if (op === 8) socket.end(Buffer.from([0x88, 0]));
      }
    });
    const drop = () => {
      sockets.delete(socket);
      for (const [id, s] of subs) if (s.socket === socket) subs.delete(id);
    };
    socket.on('close', drop);
    socket.on('error', drop);
  });

  // Notifications: looked for on a short timer rather than hooked into block production.
  const timer = setInterval(() => {
    for (const [id, s] of subs) {
      if (s.kind === 'slot') {
        if (s.lastSlot !== chain.slot) {
          s.lastSlot = chain.slot;
          const parent = chain.head.parentSlot;
          send(s.socket, {
            jsonrpc: '2.0',
            method: 'slotNotification',
            params: { result: { parent, root: 0, slot: chain.slot }, subscription: id },
          });
        }
        continue;
      }
      const status = statusOf(chain, s.signature) as { confirmationStatus: string; err: Json } | null;
      if (!status || LEVELS.indexOf(status.confirmationStatus) < (s.commitment ?? 2)) continue;
      subs.delete(id);
      send(s.socket, {
        jsonrpc: '2.0',
        method: 'signatureNotification',
        params: {
          result: { context: { slot: chain.head.slot }, value: { err: status.err } },
          subscription: id,
        },
      });
    }
  }, 25);
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const s of sockets) s.destroy();
  };
}
