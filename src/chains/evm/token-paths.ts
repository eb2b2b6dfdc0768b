import type { ChainName } from '../types.ts';
import { evmChain } from './chains.ts';

/**
 * The path segments a chain's token routes answer under: its own names and the ERC names (BSC names its
 * tokens bep20/bep721 and accepts erc20/erc721 too).
 */
export function tokenPathSegments(chain: ChainName) {
  const { fungible, nft } = evmChain(chain).tokenSegments;
  return {
    fungible,
    nft,
    fungibleSegments: [...new Set([fungible, 'erc20'])],
    nftSegments: [...new Set([nft, 'erc721'])],
  };
}
