import type { FastifyInstance } from 'fastify';
import { toJsonText } from '../json/json-text.ts';
import { holdsJsonNumber } from '../json/node-json.ts';

/**
 * An answer that passes a node's JSON on holds the node's big integers as `JsonNumber`s: it is written
 * by the exact writer, so `"preBalances":[999999970454345720,…]` leaves as the node wrote it (a client's
 * own response check, like @solana/web3.js's, expects numbers there). Every other answer keeps its
 * schema's serializer.
 */
export function writeExactNumbers(app: FastifyInstance): void {
  // Registered in the read routes' plugin: a walk of the answer, paid only where the node's JSON is passed on.
  app.addHook('preSerialization', (_request, reply, payload, done) => {
    if (holdsJsonNumber(payload)) reply.type('application/json; charset=utf-8').serializer(toJsonText);
    done(null, payload);
  });
}
