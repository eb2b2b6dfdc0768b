// The demo jetton: the project's TEP-74 minter and wallet (devnets/contracts/ton/*.fc), compiled once per
// process by func-js, a USDT master with on-chain TEP-64 metadata whose admin is the faucet, and the
// messages the faucet sends to mint.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  type Address,
  beginCell,
  Cell,
  contractAddress,
  Dictionary,
  internal,
  type MessageRelaxed,
  toNano,
} from '@ton/core';
import { type Blockchain, createShardAccount } from '@ton/sandbox';

export const OP_MINT = 21;
export const OP_INTERNAL_TRANSFER = 0x178d4519;

const SOURCES = ['stdlib.fc', 'jetton-common.fc', 'jetton-wallet.fc', 'jetton-minter.fc'];
const SOURCE_DIR = new URL('../contracts/ton/', import.meta.url);

export interface JettonCode {
  minter: Cell;
  wallet: Cell;
}

let compiled: Promise<JettonCode> | null = null;

/** The minter and wallet code, compiled on first use and kept for the process. */
export function jettonCode(): Promise<JettonCode> {
  compiled ??= compileJettonCode();
  compiled.catch(() => {
    compiled = null;
  });
  return compiled;
}

async function compileJettonCode(): Promise<JettonCode> {
  const { compileFunc } = await import('@ton-community/func-js');
  const sources: Record<string, string> = {};
  for (const name of SOURCES) sources[name] = await readFile(new URL(name, SOURCE_DIR), 'utf8');
  const compile = async (target: string) => {
    const result = await compileFunc({ targets: [target], sources });
    if (result.status === 'error') throw new Error(`compiling ${target}: ${result.message}`);
    return Cell.fromBase64(result.codeBoc);
  };
  return { minter: await compile('jetton-minter.fc'), wallet: await compile('jetton-wallet.fc') };
}

export interface JettonMetadata {
  name: string;
  symbol: string;
  decimals: string;
  description: string;
}

/** TEP-64 on-chain content: 0x00, then a dict from sha256(key) to a snake-encoded value (0x00 prefix). */
export function onChainContent(metadata: JettonMetadata): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  for (const [key, value] of Object.entries(metadata)) {
    dict.set(
      createHash('sha256').update(key).digest(),
      beginCell().storeUint(0, 8).storeStringTail(value).endCell(),
    );
  }
  return beginCell().storeUint(0, 8).storeDict(dict).endCell();
}

export const USDT_METADATA: JettonMetadata = {
  name: 'Tether USD',
  symbol: 'USDT',
  decimals: '6',
  description: 'Demo USDT of the Switchyard TON devnet',
};

/** A minter's code and initial data: no supply yet, `admin` mints. */
export function minterInit(code: JettonCode, admin: Address, metadata: JettonMetadata) {
  const data = beginCell()
    .storeCoins(0)
    .storeAddress(admin)
    .storeRef(onChainContent(metadata))
    .storeRef(code.wallet)
    .endCell();
  return { code: code.minter, data };
}

/** Puts a jetton master on the chain (deployed, with 1 TON) unless it is there; its address. */
export async function deployMinter(
  chain: Blockchain,
  code: JettonCode,
  admin: Address,
  metadata: JettonMetadata,
): Promise<Address> {
  const init = minterInit(code, admin, metadata);
  const address = contractAddress(0, init);
  if ((await chain.getContract(address)).accountState?.type !== 'active') {
    await chain.setShardAccount(address, createShardAccount({ address, ...init, balance: toNano('1') }));
  }
  return address;
}

/**
 * The admin's mint message: the master sends an internal_transfer of `units` to `owner`'s jetton wallet
 * (deploying it) with 0.05 TON; what the wallet does not need comes back to `excessesTo`.
 */
export function mintMessage(
  master: Address,
  owner: Address,
  units: bigint,
  excessesTo: Address,
): MessageRelaxed {
  const queryId = BigInt(Date.now());
  const transfer = beginCell()
    .storeUint(OP_INTERNAL_TRANSFER, 32)
    .storeUint(queryId, 64)
    .storeCoins(units)
    .storeAddress(null) // from: none, the master mints
    .storeAddress(excessesTo)
    .storeCoins(0) // forward_ton_amount: no notification
    .storeBit(false) // forward_payload: empty, inline
    .endCell();
  const body = beginCell()
    .storeUint(OP_MINT, 32)
    .storeUint(queryId, 64)
    .storeAddress(owner)
    .storeCoins(toNano('0.05'))
    .storeRef(transfer)
    .endCell();
  return internal({ to: master, value: toNano('0.1'), bounce: true, body });
}
