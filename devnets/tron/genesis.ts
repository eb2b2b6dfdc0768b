// Genesis: faucet and witness accounts, the network-wide stake that sizes resource limits, a TRC10
// asset, and the project's TRC20/TRC721 contracts deployed from source.
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { addressFromPrivateKey, type HexAddress, parseAddress } from './address.ts';
import { toTronAbi } from './contract-json.ts';
import { type ChainParams, DEFAULT_CHAIN_PARAMS } from './params.ts';
import { compileContracts } from './solidity.ts';
import { type AssetIssue, emptyWorld, newAccount, type WorldState } from './state.ts';
import { deployAt } from './tvm.ts';

const TRX = 1_000_000n;

export interface GenesisOptions {
  /** Hex private key of the faucet (also the TRC10 issuer and contract deployer). */
  faucetPrivateKey?: string;
  /** Hex private key of the single block producer. */
  witnessPrivateKey?: string;
  faucetBalanceSun?: bigint;
  /** Extra funded accounts (base58 or 41-hex). */
  accounts?: { address: string; balanceSun: bigint }[];
  /** TRX staked network-wide for each of bandwidth and energy; sizes TotalNetWeight/TotalEnergyWeight. */
  networkStakeTrx?: bigint;
  trc10?: { name: string; abbr: string; precision: number; totalSupply: bigint };
  params?: Partial<ChainParams>;
}

export interface Genesis {
  world: WorldState;
  params: ChainParams;
  faucetKey: Uint8Array;
  faucet: HexAddress;
  witnessKey: Uint8Array;
  tokens: {
    trc20: Record<string, HexAddress>;
    trc721: Record<string, HexAddress>;
    trc10: Record<string, string>;
  };
}

/** Deterministic so sandboxes and tests can know the keys; never use these outside a devnet. */
const devKey = (label: string) => sha256(utf8ToBytes(`switchyard tron devnet ${label}`));

/** Util.generateContractAddress: keccak256(txID || owner)[12:] with the 0x41 prefix. */
export function contractAddressFor(txId: Uint8Array, owner: HexAddress): HexAddress {
  return `41${bytesToHex(keccak_256(concatBytes(txId, hexToBytes(owner))).subarray(12))}`;
}

export async function buildGenesis(opts: GenesisOptions = {}): Promise<Genesis> {
  const params: ChainParams = { ...DEFAULT_CHAIN_PARAMS, ...opts.params };
  const faucetKey = opts.faucetPrivateKey ? hexToBytes(opts.faucetPrivateKey) : devKey('faucet');
  const witnessKey = opts.witnessPrivateKey ? hexToBytes(opts.witnessPrivateKey) : devKey('witness');
  const faucet = addressFromPrivateKey(faucetKey);
  const witness = addressFromPrivateKey(witnessKey);
  const world = emptyWorld();

  const faucetAccount = newAccount(faucet, 0n);
  // Below 2^53 sun so JavaScript clients reading it as a JSON number stay exact.
  faucetAccount.balance = opts.faucetBalanceSun ?? 5_000_000_000n * TRX;
  world.accounts.set(faucet, faucetAccount);

  const witnessAccount = newAccount(witness, 0n);
  const stake = (opts.networkStakeTrx ?? 10_000_000_000n) * TRX;
  witnessAccount.balance = 1_000_000n * TRX;
  witnessAccount.frozenV2.BANDWIDTH = stake;
  witnessAccount.frozenV2.ENERGY = stake;
  world.accounts.set(witness, witnessAccount);

  for (const a of opts.accounts ?? []) {
    const hex = parseAddress(a.address);
    if (!hex) throw new Error(`invalid genesis address ${a.address}`);
    const acc = world.accounts.get(hex) ?? newAccount(hex, 0n);
    acc.balance += a.balanceSun;
    world.accounts.set(hex, acc);
  }

  const trc10 = opts.trc10 ?? {
    name: 'SwitchyardToken',
    abbr: 'SYT',
    precision: 6,
    totalSupply: 1_000_000_000n * TRX,
  };
  const asset: AssetIssue = {
    id: String(world.nextAssetId++),
    owner: faucet,
    name: trc10.name,
    abbr: trc10.abbr,
    description: 'TRC10 token issued at devnet genesis',
    url: 'https://devnet.switchyard.invalid',
    totalSupply: trc10.totalSupply,
    precision: trc10.precision,
    trxNum: 1n,
    num: 1n,
    startTime: 1n,
    endTime: 4_102_444_800_000n,
  };
  world.assets.set(asset.id, asset);
  faucetAccount.assets.set(asset.id, asset.totalSupply);
  faucetAccount.assetIssuedId = asset.id;

  const compiled = await compileContracts();
  const deploy = async (contractName: string): Promise<HexAddress> => {
    const c = compiled[contractName];
    if (!c) throw new Error(`contract ${contractName} missing from devnets/contracts`);
    const address = contractAddressFor(sha256(concatBytes(utf8ToBytes('genesis:'), c.bytecode)), faucet);
    world.accounts.set(address, newAccount(address, 0n, 'Contract'));
    world.contracts.set(address, {
      address,
      origin: faucet,
      name: contractName,
      abi: toTronAbi(c.abi),
      bytecode: c.bytecode,
      runtimeCode: new Uint8Array(),
      codeHash: new Uint8Array(32),
      consumeUserResourcePercent: 100n,
      originEnergyLimit: 10_000_000n,
      storage: new Map(),
    });
    const runtime = await deployAt(world, faucet, address, c.bytecode, {
      number: 0n,
      timestamp: 0n,
      witness,
    });
    const info = world.contracts.get(address);
    if (info) {
      info.runtimeCode = runtime;
      info.codeHash = keccak_256(runtime);
    }
    return address;
  };

  return {
    world,
    params,
    faucetKey,
    faucet,
    witnessKey,
    tokens: {
      trc20: { USDT: await deploy('TRC20Token') },
      trc721: { NFT: await deploy('TRC721Token') },
      trc10: { [trc10.name]: asset.id },
    },
  };
}
