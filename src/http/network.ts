import type { FastifyRequest } from 'fastify';
import type { Network } from '../chains/types.ts';
import { invalidField } from '../errors.ts';

/** `X-Network: testnet | mainnet`, any case; absent means mainnet. Anything else is a 422. */
export function networkOf(request: FastifyRequest): Network {
  const raw = request.headers['x-network'];
  if (raw === undefined) return 'mainnet';
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim().toLowerCase();
  if (value === 'mainnet' || value === 'testnet') return value;
  throw invalidField('X-Network', 'The X-Network header must be testnet or mainnet.');
}
