/**
 * TronAdapter against the project's Tron devnet (java-tron HTTP API over a real chain state): keys,
 * TRX / TRC20 / TRC721 / TRC10 transfers, Stake 2.0, error translation and failover.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTronDevnet, type TronDevnet } from '../../../devnets/tron/index.ts';
import { functionSelector } from '../../../src/chains/tron/abi.ts';
import { TronAdapter } from '../../../src/chains/tron/adapter.ts';
import { trc20TransferCall } from '../../../src/chains/tron/contract-calls.ts';
import { TronBroadcastError, TronContractError, TronNodeError } from '../../../src/chains/tron/errors.ts';
import type { TronKeyPair } from '../../../src/chains/tron/keys.ts';
import { bandwidthOf } from '../../../src/chains/tron/resources.ts';
import type { TronTransaction } from '../../../src/chains/tron/types.ts';

const TRX = 1_000_000n;
const FEE_LIMIT = 100n * TRX;
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

let devnet: TronDevnet;
let tron: TronAdapter;
let alice: TronKeyPair;
let bob: TronKeyPair;

type Info = {
  id: string;
  fee?: number;
  blockNumber?: number;
  receipt: Record<string, number | string>;
  log?: { address: string; topics: string[]; data?: string }[];
  result?: string;
};

beforeAll(async () => {
  devnet = await startTronDevnet({ blockIntervalMs: null });
  tron = new TronAdapter({
    network: 'testnet',
    endpoints: [{ url: devnet.url, headers: {} }],
    timeoutMs: 10_000,
    retries: 1,
  });
  alice = tron.generateKey();
  bob = tron.generateKey();
  await devnet.faucetTrx(alice.address, 2_000n * TRX);
}, 120_000);

afterAll(async () => {
  await tron?.close();
  await devnet?.close();
});

/** Signs, broadcasts and mines one block; returns the transaction info. */
async function send(tx: TronTransaction, key: TronKeyPair): Promise<Info> {
  const signed = await tron.sign(tx, key.privateKey);
  const { txid } = await tron.broadcast(signed);
  expect(txid).toBe(tx.txID);
  await devnet.mine(1);
  const info = (await tron.getTransactionInfo(txid)) as Info | null;
  expect(info).not.toBeNull();
  return info!;
}

const word = (address: string) => tron.toHex(address).slice(2).padStart(64, '0');

describe('blocks', () => {
  it('reads the head, blocks by number and id, and the solidified head', async () => {
    const mined = await devnet.mine(2);
    const head = await tron.getBlockNumber();
    expect(head).toBe(BigInt(mined));
    const block = await tron.getBlock(String(head));
    expect(block).not.toBeNull();
    const id = block!['blockID'] as string;
    expect(id.slice(0, 16)).toBe(head.toString(16).padStart(16, '0'));
    expect(await tron.getBlock(id)).toEqual(block);
    expect(await tron.getBlock(String(head + 1000n))).toBeNull();
    expect(await tron.getBlock('ff'.repeat(32))).toBeNull();
    expect(await tron.getSolidBlockNumber()).toBeLessThanOrEqual(head);
    await expect(tron.checkNode()).resolves.toBeUndefined();
  });

  it('chain parameters as the node lists them', async () => {
    const { chainParameter } = await tron.getChainParameters();
    expect(chainParameter.find((p) => p.key === 'getEnergyFee')?.value).toBeGreaterThan(0);
    expect(chainParameter.find((p) => p.key === 'getTransactionFee')?.value).toBeGreaterThan(0);
  });
});

describe('TRX', () => {
  it('generate key, faucet, build + sign + broadcast a transfer, mine, balances move', async () => {
    const before = await tron.getBalance(alice.address);
    expect(before).toBe(2_000n * TRX);
    expect(await tron.getBalance(bob.address)).toBe(0n);
    expect(await tron.getAccount(bob.address)).toBeNull();

    const tx = await tron.buildTrxTransfer(alice.address, bob.address, 50n * TRX);
    expect(tx.raw_data.contract[0]!.type).toBe('TransferContract');
    const info = await send(tx, alice);

    expect(await tron.getBalance(bob.address)).toBe(50n * TRX);
    expect(await tron.getBalance(alice.address)).toBe(before - 50n * TRX - BigInt(info.fee ?? 0));
    const onChain = await tron.getTransaction(tx.txID);
    expect((onChain!['ret'] as { contractRet: string }[])[0]!.contractRet).toBe('SUCCESS');
    expect(onChain!['signature']).toHaveLength(1);
    expect(info.blockNumber).toBe(Number(await tron.getBlockNumber()));
  });

  it('a transaction signed by the wrong key: SIGERROR, translated', async () => {
    const tx = await tron.buildTrxTransfer(alice.address, bob.address, TRX);
    const signed = await tron.sign(tx, bob.privateKey);
    const error = (await tron.broadcast(signed).catch((e: unknown) => e)) as TronBroadcastError;
    expect(error).toBeInstanceOf(TronBroadcastError);
    expect(error.code).toBe('SIGERROR');
    // java-tron's TransactionCapsule.checkWeight (develop, 2025) prints the signature hex here.
    expect(error.apiMessage).toBe(
      `Validate signature error: ${signed.signature[0]} is signed by ${bob.address} but it is not contained of permission.`,
    );
  });

  it('insufficient balance: `balance is not sufficient` at build time and at broadcast time', async () => {
    const build = (await tron
      .buildTrxTransfer(bob.address, alice.address, 10_000n * TRX)
      .catch((e: unknown) => e)) as TronNodeError;
    expect(build).toBeInstanceOf(TronNodeError);
    expect(build.message).toBe('Validate TransferContract error, balance is not sufficient.');
    expect(build.apiMessage).toBe('balance is not sufficient');

    // Both validate alone; once the first is pending the second no longer fits the balance.
    const first = await tron.buildTrxTransfer(bob.address, alice.address, 30n * TRX);
    const second = await tron.buildTrxTransfer(bob.address, alice.address, 30n * TRX + 1n);
    await tron.broadcast(await tron.sign(first, bob.privateKey));
    const error = (await tron
      .broadcast(await tron.sign(second, bob.privateKey))
      .catch((e: unknown) => e)) as TronBroadcastError;
    expect(error).toBeInstanceOf(TronBroadcastError);
    expect(error.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(error.message).toBe(
      'Contract validate error : Validate TransferContract error, balance is not sufficient.',
    );
    expect(error.apiMessage).toBe('balance is not sufficient');
    await devnet.mine(1);
  });

  it('broadcasting the same signed transaction again answers with its txid', async () => {
    const tx = await tron.buildTrxTransfer(alice.address, bob.address, TRX);
    const signed = await tron.sign(tx, alice.privateKey);
    await expect(tron.broadcast(signed)).resolves.toEqual({ txid: tx.txID });
    await expect(tron.broadcast(signed)).resolves.toEqual({ txid: tx.txID });
    await devnet.mine(1);
  });
});

describe('TRC20', () => {
  const usdt = () => devnet.tokens.trc20.USDT;

  it('reads contract info and balances', async () => {
    await devnet.faucetTrc20(usdt(), alice.address, 1_000_000_000n);
    const info = await tron.getTrc20Info(usdt());
    expect(info.address).toBe(usdt());
    expect(info.symbol).toMatch(/\S/);
    expect(info.name).toMatch(/\S/);
    expect(BigInt(info.totalSupply)).toBeGreaterThanOrEqual(1_000_000_000n);
    expect(Number(info.decimals)).toBeGreaterThanOrEqual(0);
    expect(await tron.getTrc20Balance(alice.address, usdt())).toEqual({
      balance: 1_000_000_000n,
      decimals: Number(info.decimals),
    });
    expect((await tron.getTrc20Balance(bob.address, usdt())).balance).toBe(0n);
  });

  it('pre-flight estimate, transfer, and the Transfer log in getTransactionInfo', async () => {
    const call = trc20TransferCall(bob.address, usdt(), 250_000n, FEE_LIMIT);
    const early = await tron.estimateContractTransfer(alice.address, call);
    expect(early.revert).toBeNull();
    expect(early.energy).toBeGreaterThan(5_000n);

    const tx = await tron.buildTrc20Transfer(alice.address, bob.address, usdt(), 250_000n, FEE_LIMIT);
    expect(tx.raw_data.fee_limit).toBe(Number(FEE_LIMIT));
    const estimate = await tron.estimateContractTransfer(alice.address, tx);
    expect(estimate.energy).toBe(early.energy);
    expect(estimate.bandwidth).toBe(bandwidthOf(BigInt(tx.raw_data_hex.length / 2), 1));
    expect(estimate.balanceSun).toBe(await tron.getBalance(alice.address));
    expect(tron.preflightProblems(estimate, FEE_LIMIT)).toEqual([]);

    const balanceBefore = await tron.getBalance(alice.address);
    const info = await send(tx, alice);
    expect(info.result).toBeUndefined();
    const used = BigInt(info.receipt['energy_usage_total'] as number);
    expect(used).toBeGreaterThan(0n);
    expect(estimate.energy).toBe(used);
    expect(estimate.energyRequired).toBeGreaterThanOrEqual(used);
    expect(BigInt(info.receipt['net_usage'] ?? 0) + BigInt(info.receipt['net_fee'] ?? 0) / 1000n).toBe(
      estimate.bandwidth,
    );
    expect(BigInt(info.fee ?? 0)).toBe(estimate.trxNeededSun);
    expect(await tron.getBalance(alice.address)).toBe(balanceBefore - BigInt(info.fee ?? 0));

    const log = info.log?.[0];
    expect(log?.address).toBe(tron.toHex(usdt()).slice(2));
    expect(log?.topics).toEqual([TRANSFER_TOPIC, word(alice.address), word(bob.address)]);
    expect(BigInt(`0x${log?.data}`)).toBe(250_000n);
    expect((await tron.getTrc20Balance(bob.address, usdt())).balance).toBe(250_000n);
    expect((await tron.getTrc20Balance(alice.address, usdt())).balance).toBe(1_000_000_000n - 250_000n);
  });

  it('pre-flight reports a revert, a fee limit too low and a balance too small', async () => {
    const tooMuch = await tron.estimateContractTransfer(
      bob.address,
      trc20TransferCall(alice.address, usdt(), 10n ** 12n),
    );
    expect(tooMuch.revert).not.toBeNull();
    expect(tron.preflightProblems(tooMuch, FEE_LIMIT)[0]).toMatch(/^the contract rejects this transfer/);

    const poor = tron.generateKey();
    await devnet.faucetTrx(poor.address, TRX);
    await devnet.faucetTrc20(usdt(), poor.address, 1_000n);
    const estimate = await tron.estimateContractTransfer(
      poor.address,
      trc20TransferCall(bob.address, usdt(), 10n),
    );
    expect(estimate.energyAvailable).toBe(0n);
    expect(estimate.energyFeeSun).toBe(estimate.energy * estimate.energyPriceSun);
    const problems = tron.preflightProblems(estimate, TRX / 10n);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^needs [0-9,]+ energy but has 0; burning it costs [0-9.]+ TRX, more than fee_limit 0\.1 TRX$/,
    );
    expect(problems[1]).toMatch(/^has 1 TRX but needs [0-9.]+ TRX for energy and bandwidth$/);
  });

  it('getTrc20Info on an address that is not a contract: TronContractError', async () => {
    await expect(tron.getTrc20Info(alice.address)).rejects.toThrow(TronContractError);
    await expect(tron.getTrc20Info(tron.generateKey().address)).rejects.toThrow(TronContractError);
    await expect(tron.getTrc20Balance(alice.address, bob.address)).rejects.toThrow(TronContractError);
  });
});

describe('TRC721', () => {
  it('transfers a minted token with transferFrom', async () => {
    const nft = devnet.tokens.trc721.NFT;
    const tokenId = await devnet.faucetTrc721(nft, alice.address);
    const tx = await tron.buildTrc721Transfer(alice.address, bob.address, nft, tokenId, FEE_LIMIT);
    const estimate = await tron.estimateContractTransfer(alice.address, tx);
    expect(tron.preflightProblems(estimate, FEE_LIMIT)).toEqual([]);
    const info = await send(tx, alice);
    expect(info.result).toBeUndefined();
    const log = info.log?.find((l) => l.topics[0] === TRANSFER_TOPIC);
    expect(log?.topics.slice(1)).toEqual([
      word(alice.address),
      word(bob.address),
      tokenId.toString(16).padStart(64, '0'),
    ]);
    const owner = await tron.estimateContractTransfer(bob.address, {
      contract: nft,
      data: functionSelector('ownerOf(uint256)') + tokenId.toString(16).padStart(64, '0'),
    });
    expect(owner.revert).toBeNull();
  });
});

describe('TRC10', () => {
  it('reads the asset and transfers it', async () => {
    const [name, id] = Object.entries(devnet.tokens.trc10)[0]!;
    const info = await tron.getTrc10Info(id);
    expect(info.id).toBe(id);
    expect(info.name).toBe(name);
    expect(info.totalSupply).toBeGreaterThan(0n);
    await expect(tron.getTrc10Info('1999999')).rejects.toThrow(TronContractError);

    await devnet.faucetTrc10(id, alice.address, 5_000n);
    expect(await tron.getTrc10Balance(alice.address, id)).toBe(5_000n);
    const tx = await tron.buildTrc10Transfer(alice.address, bob.address, id, 1_200n);
    expect(tx.raw_data.contract[0]!.type).toBe('TransferAssetContract');
    await send(tx, alice);
    expect(await tron.getTrc10Balance(alice.address, id)).toBe(3_800n);
    expect(await tron.getTrc10Balance(bob.address, id)).toBe(1_200n);
  });
});

describe('Stake 2.0', () => {
  it('freeze, delegate, undelegate, unfreeze', async () => {
    const info = await send(await tron.buildFreeze(alice.address, 100n * TRX, 'ENERGY'), alice);
    expect(info.result).toBeUndefined();
    let a = await tron.getAccountResources(alice.address);
    expect(a.frozenV2.energy).toBe(100n * TRX);
    expect(a.energyLimit).toBeGreaterThan(0n);

    const over = (await tron
      .buildDelegate(alice.address, bob.address, 200n * TRX, 'ENERGY')
      .catch((e: unknown) => e)) as TronNodeError;
    expect(over).toBeInstanceOf(TronNodeError);
    expect(over.message).toBe(
      'delegateBalance must be less than or equal to available FreezeEnergyV2 balance',
    );

    await send(await tron.buildDelegate(alice.address, bob.address, 40n * TRX, 'ENERGY'), alice);
    a = await tron.getAccountResources(alice.address);
    let b = await tron.getAccountResources(bob.address);
    expect(a.delegated.energyOut).toBe(40n * TRX);
    expect(a.frozenV2.energy).toBe(60n * TRX);
    expect(b.delegated.energyIn).toBe(40n * TRX);
    expect(b.energyLimit).toBeGreaterThan(0n);

    await send(await tron.buildUndelegate(alice.address, bob.address, 40n * TRX, 'ENERGY'), alice);
    a = await tron.getAccountResources(alice.address);
    b = await tron.getAccountResources(bob.address);
    expect(a.delegated.energyOut).toBe(0n);
    expect(a.frozenV2.energy).toBe(100n * TRX);
    expect(b.delegated.energyIn).toBe(0n);

    await send(await tron.buildUnfreeze(alice.address, 100n * TRX, 'ENERGY'), alice);
    a = await tron.getAccountResources(alice.address);
    expect(a.frozenV2.energy).toBe(0n);
    expect(a.unfreezing).toEqual([
      { resource: 'ENERGY', amount: 100n * TRX, expireTime: expect.any(BigInt) },
    ]);
  });

  it('an unknown account has no resources', async () => {
    const r = await tron.getAccountResources(tron.generateKey().address);
    expect(r.exists).toBe(false);
    expect(r.balance).toBe(0n);
  });
});

describe('AccountCreateContract', () => {
  it('creates an empty account for 1 TRX plus the new-account bandwidth fee; a second time is refused', async () => {
    const carol = tron.generateKey();
    const info = await send(await tron.buildAccountCreate(alice.address, carol.address), alice);
    // No staked bandwidth: free bandwidth never pays for a new account, 0.1 TRX is burned instead.
    expect(info.receipt['net_fee']).toBe(100_000);
    expect(info.fee).toBe(1_100_000);
    const created = await tron.getAccountResources(carol.address);
    expect(created.exists).toBe(true);
    expect(created.balance).toBe(0n);
    expect(created.freeBandwidthLimit).toBe(600n);

    const again = (await tron
      .buildAccountCreate(alice.address, carol.address)
      .catch((e: unknown) => e)) as TronNodeError;
    expect(again).toBeInstanceOf(TronNodeError);
    expect(again.message).toBe('Account has existed');
    const unknownOwner = (await tron
      .buildAccountCreate(tron.generateKey().address, tron.generateKey().address)
      .catch((e: unknown) => e)) as TronNodeError;
    expect(unknownOwner.message).toMatch(/^Account\[41[0-9a-f]{40}\] not exists$/);
  });

  it('reads the stake an account can lend and what it lends unlocked', async () => {
    const dave = tron.generateKey();
    await devnet.faucetTrx(dave.address, 10n * TRX);
    await send(await tron.buildFreeze(alice.address, 50n * TRX, 'BANDWIDTH'), alice);
    expect(await tron.getDelegatableSun(alice.address, 'BANDWIDTH')).toBe(50n * TRX);
    await send(await tron.buildDelegate(alice.address, dave.address, 20n * TRX, 'BANDWIDTH'), alice);
    expect(await tron.getUnlockedDelegation(alice.address, dave.address)).toEqual({
      BANDWIDTH: 20n * TRX,
      ENERGY: 0n,
    });
    const totals = await tron.getResourceTotals(alice.address);
    expect(totals.netWeight).toBeGreaterThan(0n);
    expect(totals.energyLimit).toBeGreaterThan(0n);
    await send(await tron.buildUndelegate(alice.address, dave.address, 20n * TRX, 'BANDWIDTH'), alice);
    expect(await tron.getUnlockedDelegation(alice.address, dave.address)).toEqual({
      BANDWIDTH: 0n,
      ENERGY: 0n,
    });
  });
});

describe('failover', () => {
  it('a dead endpoint first in the list does not stop reads, builds or broadcasts', async () => {
    // A port that was just listened on and closed: connections are refused.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const failover = new TronAdapter({
      network: 'testnet',
      endpoints: [
        { url: `http://127.0.0.1:${deadPort}`, headers: {} },
        { url: devnet.url, headers: {} },
      ],
      timeoutMs: 2_000,
      retries: 2,
    });
    try {
      expect(await failover.getBlockNumber()).toBe(await tron.getBlockNumber());
      const tx = await failover.buildTrxTransfer(alice.address, bob.address, 2n * TRX);
      await expect(failover.broadcast(await failover.sign(tx, alice.privateKey))).resolves.toEqual({
        txid: tx.txID,
      });
      await devnet.mine(1);
      expect(await failover.getTransactionInfo(tx.txID)).not.toBeNull();
    } finally {
      await failover.close();
    }
  });
});
