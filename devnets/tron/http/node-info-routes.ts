// /wallet/getnodeinfo: the node's head and configuration. Of java-tron's many fields only the ones a
// client reads are served: the head block and configNodeInfo.p2pVersion, the network id java-tron
// peers must share to connect (mainnet 11111, Nile 201910292).
import type { TronChain } from '../chain.ts';
import type { Json } from '../json.ts';
import type { Handler } from './server.ts';

/** Without a p2pVersion the devnet names no network, and a client cannot tell which one it stands for. */
export function nodeInfoRoutes(chain: TronChain, p2pVersion: number | undefined): Record<string, Handler> {
  return {
    getnodeinfo: () => {
      const head = chain.head;
      const configNodeInfo: { [key: string]: Json } = { codeVersion: 'devnet' };
      if (p2pVersion !== undefined) configNodeInfo['p2pVersion'] = String(p2pVersion);
      return { block: `Num:${head.header.number},ID:${head.id}`, configNodeInfo };
    },
  };
}
