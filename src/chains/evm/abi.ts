/**
 * The slices of the ERC20 / ERC721 ABIs the adapter calls, and the standard errors it can decode, as
 * JSON ABI (what viem's parseAbi makes of each signature in the comment above it): constants, so that
 * importing them loads no ABI parser.
 */
import type { Abi } from 'viem';

export const ERC20_ABI = [
  // function name() view returns (string)
  { name: 'name', type: 'function', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  // function symbol() view returns (string)
  { name: 'symbol', type: 'function', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  // function decimals() view returns (uint8)
  { name: 'decimals', type: 'function', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] },
  // function totalSupply() view returns (uint256)
  {
    name: 'totalSupply',
    type: 'function',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint256' }],
  },
  // function balanceOf(address owner) view returns (uint256)
  {
    name: 'balanceOf',
    type: 'function',
    stateMutability: 'view',
    inputs: [{ type: 'address', name: 'owner' }],
    outputs: [{ type: 'uint256' }],
  },
  // function transfer(address to, uint256 value) returns (bool)
  {
    name: 'transfer',
    type: 'function',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'to' },
      { type: 'uint256', name: 'value' },
    ],
    outputs: [{ type: 'bool' }],
  },
  // event Transfer(address indexed from, address indexed to, uint256 value)
  {
    name: 'Transfer',
    type: 'event',
    inputs: [
      { type: 'address', name: 'from', indexed: true },
      { type: 'address', name: 'to', indexed: true },
      { type: 'uint256', name: 'value' },
    ],
  },
] as const satisfies Abi;

export const ERC721_ABI = [
  // function ownerOf(uint256 tokenId) view returns (address)
  {
    name: 'ownerOf',
    type: 'function',
    stateMutability: 'view',
    inputs: [{ type: 'uint256', name: 'tokenId' }],
    outputs: [{ type: 'address' }],
  },
  // function tokenURI(uint256 tokenId) view returns (string)
  {
    name: 'tokenURI',
    type: 'function',
    stateMutability: 'view',
    inputs: [{ type: 'uint256', name: 'tokenId' }],
    outputs: [{ type: 'string' }],
  },
  // function safeTransferFrom(address from, address to, uint256 tokenId)
  {
    name: 'safeTransferFrom',
    type: 'function',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'from' },
      { type: 'address', name: 'to' },
      { type: 'uint256', name: 'tokenId' },
    ],
    outputs: [],
  },
  // function transferFrom(address from, address to, uint256 tokenId)
  {
    name: 'transferFrom',
    type: 'function',
    stateMutability: 'nonpayable',
    inputs: [
      { type: 'address', name: 'from' },
      { type: 'address', name: 'to' },
      { type: 'uint256', name: 'tokenId' },
    ],
    outputs: [],
  },
] as const satisfies Abi;

/**
 * Custom errors of OpenZeppelin 5 (ERC-6093), the most common token code on every chain here, so their
 * reverts read as names instead of selectors. Error(string) and Panic(uint256) viem decodes by itself.
 */
export const KNOWN_ERRORS_ABI = [
  // error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
  {
    name: 'ERC20InsufficientBalance',
    type: 'error',
    inputs: [
      { type: 'address', name: 'sender' },
      { type: 'uint256', name: 'balance' },
      { type: 'uint256', name: 'needed' },
    ],
  },
  // error ERC20InvalidSender(address sender)
  { name: 'ERC20InvalidSender', type: 'error', inputs: [{ type: 'address', name: 'sender' }] },
  // error ERC20InvalidReceiver(address receiver)
  { name: 'ERC20InvalidReceiver', type: 'error', inputs: [{ type: 'address', name: 'receiver' }] },
  // error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
  {
    name: 'ERC20InsufficientAllowance',
    type: 'error',
    inputs: [
      { type: 'address', name: 'spender' },
      { type: 'uint256', name: 'allowance' },
      { type: 'uint256', name: 'needed' },
    ],
  },
  // error ERC20InvalidApprover(address approver)
  { name: 'ERC20InvalidApprover', type: 'error', inputs: [{ type: 'address', name: 'approver' }] },
  // error ERC20InvalidSpender(address spender)
  { name: 'ERC20InvalidSpender', type: 'error', inputs: [{ type: 'address', name: 'spender' }] },
  // error ERC721InvalidOwner(address owner)
  { name: 'ERC721InvalidOwner', type: 'error', inputs: [{ type: 'address', name: 'owner' }] },
  // error ERC721NonexistentToken(uint256 tokenId)
  { name: 'ERC721NonexistentToken', type: 'error', inputs: [{ type: 'uint256', name: 'tokenId' }] },
  // error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)
  {
    name: 'ERC721IncorrectOwner',
    type: 'error',
    inputs: [
      { type: 'address', name: 'sender' },
      { type: 'uint256', name: 'tokenId' },
      { type: 'address', name: 'owner' },
    ],
  },
  // error ERC721InvalidSender(address sender)
  { name: 'ERC721InvalidSender', type: 'error', inputs: [{ type: 'address', name: 'sender' }] },
  // error ERC721InvalidReceiver(address receiver)
  { name: 'ERC721InvalidReceiver', type: 'error', inputs: [{ type: 'address', name: 'receiver' }] },
  // error ERC721InsufficientApproval(address operator, uint256 tokenId)
  {
    name: 'ERC721InsufficientApproval',
    type: 'error',
    inputs: [
      { type: 'address', name: 'operator' },
      { type: 'uint256', name: 'tokenId' },
    ],
  },
  // error ERC721InvalidApprover(address approver)
  { name: 'ERC721InvalidApprover', type: 'error', inputs: [{ type: 'address', name: 'approver' }] },
  // error ERC721InvalidOperator(address operator)
  { name: 'ERC721InvalidOperator', type: 'error', inputs: [{ type: 'address', name: 'operator' }] },
  // error OwnableUnauthorizedAccount(address account)
  { name: 'OwnableUnauthorizedAccount', type: 'error', inputs: [{ type: 'address', name: 'account' }] },
  // error EnforcedPause()
  { name: 'EnforcedPause', type: 'error', inputs: [] },
] as const satisfies Abi;
