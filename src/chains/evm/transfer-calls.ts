/**
 * Token transfer calls read from a transaction's input: ERC20 `transfer(to, amount)`, and ERC721
 * `transferFrom` / `safeTransferFrom(from, to, id[, data])`. ERC20's `transferFrom` shares the first
 * selector and reads as an NFT transfer here; isErc20OrNftTransferFrom tells that case apart. Pure: nothing
 * here talks to a node.
 */
import type { Address } from 'viem';
import { checksumAddress } from './keys.ts';

export type TransferCall =
  | { standard: 'fungible'; to: Address; units: bigint }
  | { standard: 'nft'; from: Address; to: Address; tokenId: bigint };

const TRANSFER = '0xa9059cbb';
/** transferFrom(address,address,uint256): ERC20 (amount) and ERC721 (token id) alike. */
const TRANSFER_FROM = '0x23b872dd';
const NFT_SELECTORS = new Set([
  TRANSFER_FROM,
  '0x42842e0e', // safeTransferFrom(address,address,uint256)
  '0xb88d4fde', // safeTransferFrom(address,address,uint256,bytes)
]);
const WORD = 64;

/** The token transfer `input` asks for; null for anything else (a plain payment, another call). */
export function decodeTransferCall(input: string): TransferCall | null {
  const hex = input.toLowerCase();
  if (!/^0x[0-9a-f]*$/.test(hex)) return null;
  const selector = hex.slice(0, 10);
  const word = (i: number) => hex.slice(10 + i * WORD, 10 + (i + 1) * WORD);
  const words = Math.floor((hex.length - 10) / WORD);
  if (selector === TRANSFER && words >= 2) {
    return { standard: 'fungible', to: wordAddress(word(0)), units: BigInt(`0x${word(1)}`) };
  }
  if (NFT_SELECTORS.has(selector) && words >= 3) {
    return {
      standard: 'nft',
      from: wordAddress(word(0)),
      to: wordAddress(word(1)),
      tokenId: BigInt(`0x${word(2)}`),
    };
  }
  return null;
}

/** Whether `input` calls transferFrom, which ERC20 and ERC721 share: its Transfer event may take either shape. */
export function isErc20OrNftTransferFrom(input: string): boolean {
  return input.toLowerCase().startsWith(TRANSFER_FROM);
}

/** An ABI-encoded address: the last 20 bytes of its word. */
function wordAddress(word: string): Address {
  return checksumAddress(word.slice(24));
}
