// The endpoint table: /wallet/* sees the head (with pending transactions), /walletsolidity/*
// the solidified block.
import type { TronChain } from '../chain.ts';
import { accountRoutes } from './account-routes.ts';
import { blockRoutes } from './block-routes.ts';
import { buildRoutes } from './build-routes.ts';
import { contractRoutes } from './contract-routes.ts';
import { nodeInfoRoutes } from './node-info-routes.ts';
import type { Handler, Routes } from './server.ts';

const SOLIDITY_ENDPOINTS = [
  'getnowblock',
  'getblockbynum',
  'getblockbyid',
  'getblockbylimitnext',
  'getblockbylatestnum',
  'getblock',
  'gettransactionbyid',
  'gettransactioninfobyid',
  'gettransactioninfobyblocknum',
  'getaccount',
  'getassetissuebyid',
  'getassetissuelist',
  'getdelegatedresourcev2',
  'getdelegatedresourceaccountindexv2',
  'getcanwithdrawunfreezeamount',
  'getavailableunfreezecount',
  'getcandelegatedmaxsize',
  'triggerconstantcontract',
  'estimateenergy',
];

export function nodeRoutes(chain: TronChain, p2pVersion?: number): Routes {
  const wallet: Record<string, Handler> = {
    ...nodeInfoRoutes(chain, p2pVersion),
    ...blockRoutes(chain),
    ...accountRoutes(chain),
    ...buildRoutes(chain),
    ...contractRoutes(chain),
  };
  const solidity: Record<string, Handler> = {};
  for (const name of SOLIDITY_ENDPOINTS) {
    const h = wallet[name];
    if (h) solidity[name] = h;
  }
  return { wallet, solidity };
}
