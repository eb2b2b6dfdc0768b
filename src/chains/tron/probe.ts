import type { NodeClient } from '../node-client.ts';
import type { HeadProbe } from '../types.ts';
import { TronHeadReader } from './head.ts';
import { TronNodeApi } from './node-api.ts';

/** The node monitor's question to one Tron endpoint: its head block number, as the adapter reads it. */
export function tronHeadProbe(client: NodeClient): HeadProbe {
  const head = new TronHeadReader(new TronNodeApi(client));
  return () => head.read(false);
}
