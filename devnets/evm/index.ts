// EVM devnet: a real anvil node per chain, with the chain's real chain id and fee behaviour, a USDT-like
// ERC20 and an ERC721 deployed, and faucets that send real transactions from an anvil dev account.
import { type Abi, type Address, encodeFunctionData, getAddress, type Hex } from 'viem';
import { evmChain } from '../../src/chains/evm/chains.ts';
import type { ChainName, Network } from '../../src/chains/types.ts';
import { ChainSaver } from '../chain-saver.ts';
import { type AnvilProcess, startAnvil } from './anvil.ts';
import { DevnetRpc } from './rpc.ts';
import { compileEvmContracts } from './solidity.ts';
import { AnvilStateStore, type EvmDevnetTokens } from './state-store.ts';

export { anvilBinary, startAnvil } from './anvil.ts';
export { type CompiledEvmContract, compileEvmContracts } from './solidity.ts';

/** anvil's default dev accounts (mnemonic "test test ... junk"): public test keys, devnets only. */
export const ANVIL_ACCOUNTS: readonly { address: Address; privateKey: Hex }[] = [
  [
    '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  ],
  [
    '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  ],
  [
    '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  ],
  [
    '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  ],
  [
    '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
    '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  ],
  [
    '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
    '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  ],
  [
    '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
    '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  ],
  [
    '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
    '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  ],
  [
    '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
    '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  ],
  [
    '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
    '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
  ],
].map(([address, privateKey]) => ({ address: address as Address, privateKey: privateKey as Hex }));

export interface EvmDevnetOptions {
  chain: ChainName;
  /** Which public network's chain id to copy. Default mainnet. */
  network?: Network;
  /** Overrides the network's chain id. */
  chainId?: number;
  /** 0 or undefined picks a free port. */
  port?: number;
  host?: string;
  /** Seconds between blocks (interval mining); undefined mines each transaction at once. */
  blockTime?: number;
  /** With blockTime: transactions are still mined at once, and empty blocks come every blockTime. */
  mixedMining?: boolean;
  /**
   * Keeps the chain in this folder: a devnet started on a folder holding a saved chain carries on from it
   * (same blocks, balances and token addresses); the chain is saved on a timer and on close().
   */
  stateDir?: string;
  /** How often a stateDir devnet looks for new transactions to save. Default 5000. */
  saveIntervalMs?: number;
  /**
   * Starts as a fork of `devnet` at `blockNumber` (not with stateDir): the same chain up to that block,
   * tokens included (it must be at or above their deployment), and a chain of its own above it.
   */
  fork?: { devnet: Pick<EvmDevnet, 'url' | 'tokens'>; blockNumber: bigint };
}

export interface EvmDevnet {
  chain: ChainName;
  network: Network;
  chainId: number;
  url: string;
  /** The same node over WebSocket (anvil serves both on one port): `eth_subscribe` and the rest. */
  wsUrl: string;
  tokens: EvmDevnetTokens;
  /** Dev account #0: deployer and owner of the tokens, source of every faucet transfer. */
  faucetAccount: { address: Address; privateKey: Hex };
  /** Dev accounts #1..#9, funded with 10000 of the native coin each; free for tests to use. */
  accounts: readonly { address: Address; privateKey: Hex }[];
  /** Raw JSON-RPC to the node (anvil_* and evm_* included). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Sends `wei` of the native coin; resolves once mined, to the transaction hash. */
  faucetNative(address: string, wei: bigint): Promise<Hex>;
  /** Mints `units` (base units) of an ERC20 devnet token to `to`. */
  faucetErc20(contract: string, to: string, units: bigint): Promise<Hex>;
  /** Mints the next NFT to `to`; resolves to its token id. */
  faucetErc721(contract: string, to: string): Promise<bigint>;
  /** Mines `n` blocks now; resolves to the new head number. */
  mine(n?: number): Promise<bigint>;
  /** Replaces the last `depth` blocks with new empty ones (anvil_reorg); their transactions are dropped. */
  reorg(depth: number): Promise<void>;
  close(): Promise<void>;
}

const MINT_ABI = [
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'value', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'mint',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'to', type: 'address' }],
    outputs: [{ name: 'tokenId', type: 'uint256' }],
  },
] as const satisfies Abi;

const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** Base fee the devnet starts with, as each real chain has it (BSC fixed at 0, Arbitrum's floor). */
const DEVNET_BASE_FEE: Partial<Record<ChainName, bigint>> = { bsc: 0n, arbitrum: 10_000_000n };

export async function startEvmDevnet(options: EvmDevnetOptions): Promise<EvmDevnet> {
  const network = options.network ?? 'mainnet';
  const chainId = options.chainId ?? evmChain(options.chain).networks[network].chainId;
  if (options.fork !== undefined && options.stateDir !== undefined) {
    throw new Error('an EVM devnet is either a fork or kept in a stateDir, not both');
  }
  const compiled = compileEvmContracts();
  const baseFee = DEVNET_BASE_FEE[options.chain];
  const store = options.stateDir === undefined ? null : new AnvilStateStore(options.stateDir);
  const saved = await store?.load();
  const launch = () =>
    startAnvil({
      chainId,
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.blockTime === undefined ? {} : { blockTime: options.blockTime }),
      ...(options.mixedMining ? { mixedMining: true } : {}),
      ...(baseFee === undefined ? {} : { baseFee }),
      ...(saved ? { loadState: saved.loadFile } : {}),
      ...(options.fork === undefined
        ? {}
        : { fork: { url: options.fork.devnet.url, blockNumber: options.fork.blockNumber } }),
    });
  let anvil: AnvilProcess;
  try {
    anvil = saved ? await launchOnSavedChain(launch, saved.head) : await launch();
  } catch (error) {
    if (!saved) throw error;
    throw new Error(
      `anvil could not load the chain saved in ${options.stateDir} (start afresh with --reset): ${(error as Error).message}`,
    );
  } finally {
    await store?.loaded();
  }
  let saver: ChainSaver | null = null;
  try {
    const node = new DevnetRpc(anvil.url);
    const faucetAccount = ANVIL_ACCOUNTS[0]!;
    // One faucet transaction at a time: they all come from one account.
    let queue: Promise<unknown> = Promise.resolve();
    const serial = <T>(work: () => Promise<T>): Promise<T> => {
      const run = queue.then(work, work);
      queue = run.catch(() => undefined);
      return run;
    };
    const send = (to: Address | null, data: Hex, value = 0n) =>
      serial(async () => {
        const hash = await node.call<Hex>('eth_sendTransaction', [
          { from: faucetAccount.address, ...(to ? { to } : {}), data, value: `0x${value.toString(16)}` },
        ]);
        return node.receipt(hash);
      });

    const deployTokens = async (): Promise<EvmDevnetTokens> => {
      const contracts = await compiled;
      const deploy = async (name: string): Promise<Address> => {
        const contract = contracts[name];
        if (!contract) throw new Error(`contract ${name} missing from devnets/contracts`);
        const receipt = await send(null, contract.bytecode);
        return getAddress(receipt.contractAddress as Address);
      };
      const usdt = await deploy('ERC20Token');
      const nft = await deploy('ERC721Token');
      const deployed: EvmDevnetTokens = { erc20: { USDT: usdt }, erc721: { NFT: nft } };
      const { tokenSegments } = evmChain(options.chain);
      deployed[tokenSegments.fungible] = { USDT: usdt };
      deployed[tokenSegments.nft] = { NFT: nft };
      return deployed;
    };
    // A saved or forked chain already holds its tokens: deploying again would move them to new addresses.
    const tokens = saved ? saved.tokens : (options.fork?.devnet.tokens ?? (await deployTokens()));
    const head = async () => BigInt(await node.call<Hex>('eth_blockNumber'));
    if (store) {
      if (!saved) {
        // Tokens first: a state on disk always has its tokens beside it.
        await store.saveTokens(tokens);
        await store.saveState(node);
      }
      saver = new ChainSaver(
        {
          head,
          hasTransactions: async (after, upTo) => {
            for (let n = after + 1n; n <= upTo; n++) {
              const count = await node.call<Hex | null>('eth_getBlockTransactionCountByNumber', [
                `0x${n.toString(16)}`,
              ]);
              if (count !== null && BigInt(count) > 0n) return true;
            }
            return false;
          },
          save: () => store.saveState(node),
        },
        { intervalMs: options.saveIntervalMs ?? 5000 },
        await head(),
        (error) => console.error(`[evm-devnet ${options.chain} ${network}] saving the chain failed`, error),
      );
      saver.start();
    }

    return {
      chain: options.chain,
      network,
      chainId,
      url: anvil.url,
      wsUrl: anvil.url.replace(/^http/, 'ws'),
      tokens,
      faucetAccount,
      accounts: ANVIL_ACCOUNTS.slice(1),
      rpc: (method, params = []) => node.call(method, params),
      faucetNative: async (address, wei) =>
        (await send(getAddress(address), '0x', wei)).transactionHash as Hex,
      faucetErc20: async (contract, to, units) => {
        const data = encodeFunctionData({
          abi: MINT_ABI,
          functionName: 'mint',
          args: [getAddress(to), units],
        });
        return (await send(getAddress(contract), data)).transactionHash as Hex;
      },
      faucetErc721: async (contract, to) => {
        const data = encodeFunctionData({ abi: MINT_ABI, functionName: 'mint', args: [getAddress(to)] });
        const receipt = await send(getAddress(contract), data);
        const log = receipt.logs.find((l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 4);
        if (!log) throw new Error('mint emitted no Transfer event');
        return BigInt(log.topics[3]!);
      },
      mine: async (n = 1) => {
        await node.call('anvil_mine', [`0x${n.toString(16)}`]);
        return BigInt(await node.call<Hex>('eth_blockNumber'));
      },
      reorg: async (depth) => {
        await node.call('anvil_reorg', [depth, []]);
      },
      close: async () => {
        try {
          await saver?.stop();
        } finally {
          await anvil.close();
        }
      },
    };
  } catch (error) {
    await saver?.stop().catch(() => undefined);
    await anvil.close();
    throw error;
  }
}

/**
 * anvil started on a saved chain, checked to hold it: its head must reach the head the dump was taken at.
 * One that came up without the chain (seen under load, as a fresh chain with the same token addresses)
 * is stopped and started again, so a restart never silently loses the chain.
 */
async function launchOnSavedChain(
  launch: () => Promise<AnvilProcess>,
  savedHead: bigint | null,
): Promise<AnvilProcess> {
  let found = 0n;
  for (let attempt = 0; attempt < 3; attempt++) {
    const anvil = await launch();
    found = BigInt(await new DevnetRpc(anvil.url).call<Hex>('eth_blockNumber'));
    if (savedHead === null || found >= savedHead) return anvil;
    console.error(
      `[evm-devnet] anvil came up at block ${found}, not on the saved chain at ${savedHead}: starting it again`,
    );
    await anvil.close();
  }
  throw new Error(`anvil came up at block ${found}, below the saved chain's head ${savedHead}`);
}

/** Decimals of the devnet's tokens by symbol (USDT has 6, like mainnet USDT); the native coin has 18. */
export const EVM_DEVNET_DECIMALS: Readonly<Record<string, number>> = { USDT: 6, native: 18 };
