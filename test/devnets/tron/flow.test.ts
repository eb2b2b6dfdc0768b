// End-to-end flows through TronWeb 6 (fullHost = the devnet): TronWeb checks every node-built
// transaction against its own protobuf encoding, so these also prove byte-exact raw_data_hex.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { TronWeb, type Types } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../../../devnets/tron/address.ts';
import type { TronDevnet } from '../../../devnets/tron/index.ts';
import {
  addressWord,
  buildTrc20Transfer,
  post,
  trc20TransferParams,
  uintWord,
  useTronDevnet,
} from './helpers.ts';

const TRANSFER_TOPIC = bytesToHex(keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)')));
const hex = (a: string) => parseAddress(a) as string;

type Info = {
  fee?: number;
  blockNumber?: number;
  contractResult: string[];
  contract_address?: string;
  receipt: Record<string, number | string>;
  log?: { address: string; topics: string[]; data?: string }[];
  result?: string;
};
type Account = Record<string, unknown> & { balance?: number };
type Resource = Record<string, number | undefined>;

let devnet: TronDevnet;
let tw: TronWeb;

useTronDevnet(2, (started, web) => {
  devnet = started;
  tw = web;
});

const account = (address: string) =>
  post<Account>(devnet.url, '/wallet/getaccount', { address, visible: true });
const resources = (address: string) =>
  post<Resource>(devnet.url, '/wallet/getaccountresource', { address, visible: true });
const info = (txid: string) => post<Info>(devnet.url, '/wallet/gettransactioninfobyid', { value: txid });

/** java-tron's bandwidth: signed Transaction size without ret, plus 64 bytes reserved for the result. */
function bandwidthOf(rawDataHex: string, signatures = 1): number {
  const raw = rawDataHex.length / 2;
  const rawField = 1 + (raw < 128 ? 1 : 2) + raw;
  return rawField + signatures * (1 + 1 + 65) + 64;
}

async function newFunded(sun: bigint) {
  const acct = await tw.createAccount();
  await devnet.faucetTrx(acct.address.base58, sun);
  return acct;
}

async function trc20Balance(contract: string, holder: string): Promise<bigint> {
  const res = await tw.transactionBuilder.triggerConstantContract(
    contract,
    'balanceOf(address)',
    {},
    [{ type: 'address', value: holder }],
    holder,
  );
  return BigInt(`0x${res.constant_result?.[0]}`);
}

describe('TRX transfers', () => {
  it('builds with TronWeb, signs, broadcasts, mines; a new recipient costs 1 TRX + 0.1 TRX bandwidth', async () => {
    const to = await tw.createAccount();
    const before = (await account(devnet.faucet.address)).balance as number;

    const tx = await tw.transactionBuilder.sendTrx(to.address.base58, 2_500_000, devnet.faucet.address);
    const signed = await tw.trx.sign(tx, devnet.faucet.privateKey);
    const res = await tw.trx.sendRawTransaction(signed);
    expect(res.result).toBe(true);
    expect(res.txid).toBe(tx.txID);
    expect(res).not.toHaveProperty('code');

    // Pending: the head state already shows it, the receipt does not exist until a block holds it.
    expect(await info(tx.txID)).toEqual({});
    await devnet.mine(1);
    const receipt = await info(tx.txID);
    expect(receipt.fee).toBe(1_100_000);
    expect(receipt.receipt).toEqual({ net_fee: 100_000 });
    expect(receipt.contractResult).toEqual(['']);
    expect(receipt.blockNumber).toBe(Number(devnet.chain.head.header.number));

    const after = (await account(devnet.faucet.address)).balance as number;
    expect(before - after).toBe(2_500_000 + 1_100_000);

    // TronWeb's getBalance reads /walletsolidity/, which lags 2 blocks here.
    expect(await tw.trx.getBalance(to.address.base58)).toBe(0);
    await devnet.mine(2);
    expect(await tw.trx.getBalance(to.address.base58)).toBe(2_500_000);

    const mined = await tw.trx.getTransaction(tx.txID);
    expect(mined.ret).toEqual([{ contractRet: 'SUCCESS' }]);
    expect(mined.signature).toEqual(signed.signature.map((x: string) => x.toLowerCase()));
    expect(mined.raw_data_hex).toBe(tx.raw_data_hex);
  });

  it('node-built createtransaction passes TronWeb sign checks; an existing recipient only costs free bandwidth', async () => {
    const from = await newFunded(10_000_000n);
    const to = await newFunded(1_000_000n);
    const built = await post<{ txID: string; raw_data: { ref_block_bytes: string }; visible: boolean }>(
      devnet.url,
      '/wallet/createtransaction',
      { owner_address: from.address.base58, to_address: to.address.base58, amount: 3_000_000, visible: true },
    );
    expect(built.visible).toBe(true);
    // java-tron references the solidified block, not the head.
    expect(built.raw_data.ref_block_bytes).toBe(devnet.chain.solidBlock.id.slice(12, 16));
    const signed = await tw.trx.sign(built as never, from.privateKey);
    const res = await tw.trx.sendRawTransaction(signed);
    expect(res).toMatchObject({ result: true, txid: built.txID });
    await devnet.mine(1);
    const r = await info(built.txID);
    expect(r.fee).toBeUndefined();
    expect(r.receipt['net_usage']).toBeGreaterThan(200);
    expect((await account(to.address.base58)).balance).toBe(4_000_000);
    const res2 = await resources(from.address.base58);
    expect(res2['freeNetUsed']).toBe(r.receipt['net_usage']);
  });
});

describe('TRC20 / TRC721 / TRC10', () => {
  it('TRC20 transfer via triggersmartcontract executes in the EVM and logs Transfer', async () => {
    const usdt = devnet.tokens.trc20.USDT;
    const from = await newFunded(100_000_000n);
    const to = await tw.createAccount();
    await devnet.faucetTrc20(usdt, from.address.base58, 5_000_000n);
    expect(await trc20Balance(usdt, from.address.base58)).toBe(5_000_000n);

    const { result, transaction } = await buildTrc20Transfer(tw, {
      token: usdt,
      from: from.address.base58,
      to: to.address.base58,
      amount: 1_250_000,
      feeLimit: 50_000_000,
    });
    expect(result.result).toBe(true);
    expect(transaction.raw_data.fee_limit).toBe(50_000_000);
    const res = await tw.trx.sendRawTransaction(await tw.trx.sign(transaction, from.privateKey));
    expect(res.result).toBe(true);
    await devnet.mine(1);

    const r = await info(transaction.txID);
    expect(r.contract_address).toBe(hex(usdt));
    expect(r.receipt['result']).toBe('SUCCESS');
    const energy = r.receipt['energy_usage_total'] as number;
    expect(energy).toBeGreaterThan(10_000);
    expect(r.receipt['energy_fee']).toBe(energy * 100);
    expect(r.fee).toBe(energy * 100);
    expect(r.receipt['net_usage']).toBe(345);
    expect(r.contractResult).toEqual([uintWord(1n)]);
    expect(r.log).toEqual([
      {
        address: hex(usdt).slice(2),
        topics: [TRANSFER_TOPIC, addressWord(hex(from.address.base58)), addressWord(hex(to.address.base58))],
        data: uintWord(1_250_000n),
      },
    ]);
    expect(await trc20Balance(usdt, from.address.base58)).toBe(3_750_000n);
    expect(await trc20Balance(usdt, to.address.base58)).toBe(1_250_000n);
    // Receiving TRC20 does not activate a Tron account.
    expect(await account(to.address.base58)).toEqual({});
  });

  it('estimateenergy covers the energy a real call uses; a view function through triggersmartcontract runs at once', async () => {
    const usdt = devnet.tokens.trc20.USDT;
    const from = await newFunded(100_000_000n);
    const to = await tw.createAccount();
    await devnet.faucetTrc20(usdt, from.address.base58, 1_000n);
    const params = trc20TransferParams(to.address.base58, 10);
    const est = await tw.transactionBuilder.estimateEnergy(
      usdt,
      'transfer(address,uint256)',
      {},
      params,
      from.address.base58,
    );
    expect(est.result.result).toBe(true);
    const { transaction } = await buildTrc20Transfer(tw, {
      token: usdt,
      from: from.address.base58,
      to: to.address.base58,
      amount: 10,
      feeLimit: 50_000_000,
    });
    await tw.trx.sendRawTransaction(await tw.trx.sign(transaction, from.privateKey));
    await devnet.mine(1);
    const used = (await info(transaction.txID)).receipt['energy_usage_total'] as number;
    // java-tron's binary search stops within 1 TRX of fee_limit: at most 10 000 energy above the need.
    expect(est.energy_required).toBeGreaterThanOrEqual(used);
    expect(est.energy_required).toBeLessThanOrEqual(used + 10_000);

    const view = await post<{ constant_result: string[]; transaction: { ret: unknown[] } }>(
      devnet.url,
      '/wallet/triggersmartcontract',
      {
        owner_address: from.address.base58,
        contract_address: usdt,
        function_selector: 'balanceOf(address)',
        parameter: addressWord(hex(to.address.base58)),
        visible: true,
      },
    );
    expect(view.constant_result).toEqual([uintWord(10n)]);
    expect(view.transaction.ret).toEqual([{}]);
  });

  it('a reverted TRC20 transfer is mined as REVERT and still pays its energy', async () => {
    const usdt = devnet.tokens.trc20.USDT;
    const from = await newFunded(100_000_000n);
    const { transaction } = await buildTrc20Transfer(tw, {
      token: usdt,
      from: from.address.base58,
      to: devnet.faucet.address,
      amount: 1,
      feeLimit: 50_000_000,
    });
    const res = await tw.trx.sendRawTransaction(await tw.trx.sign(transaction, from.privateKey));
    expect(res.result).toBe(true);
    await devnet.mine(1);
    const r = await info(transaction.txID);
    expect(r.result).toBe('FAILED');
    expect(r.receipt['result']).toBe('REVERT');
    expect(r.log).toBeUndefined();
    expect(r.contractResult[0]?.startsWith('08c379a0')).toBe(true);
    expect(Buffer.from(r.contractResult[0] as string, 'hex').toString('utf8')).toContain(
      'TRC20: transfer amount exceeds balance',
    );
    expect((r as { resMessage?: string }).resMessage).toBe(
      Buffer.from('REVERT opcode executed').toString('hex'),
    );
    const tx = await tw.trx.getTransaction(transaction.txID);
    expect(tx.ret).toEqual([{ contractRet: 'REVERT' }]);
  });

  it('TRC721 faucet mints sequential token ids to the holder', async () => {
    const nft = devnet.tokens.trc721.NFT;
    const holder = await tw.createAccount();
    const first = await devnet.faucetTrc721(nft, holder.address.base58);
    const second = await devnet.faucetTrc721(nft, holder.address.base58);
    expect(second).toBe(first + 1n);
    const owner = await tw.transactionBuilder.triggerConstantContract(
      nft,
      'ownerOf(uint256)',
      {},
      [{ type: 'uint256', value: second.toString() }],
      holder.address.base58,
    );
    expect(owner.constant_result?.[0]).toBe(addressWord(hex(holder.address.base58)));
  });

  it('TRC10: genesis asset, faucet, and a TronWeb sendToken transfer', async () => {
    const [name, id] = Object.entries(devnet.tokens.trc10)[0] as [string, string];
    const issue = await post<Record<string, unknown>>(devnet.url, '/wallet/getassetissuebyid', {
      value: id,
      visible: true,
    });
    expect(issue).toMatchObject({ id, name, owner_address: devnet.faucet.address, precision: 6 });

    const holder = await newFunded(2_000_000n);
    await devnet.faucetTrc10(id, holder.address.base58, 700n);
    expect((await account(holder.address.base58))['assetV2']).toEqual([{ key: id, value: 700 }]);

    const other = await newFunded(1_000_000n);
    const tx = await tw.transactionBuilder.sendToken(other.address.base58, 200, id, holder.address.base58);
    const res = await tw.trx.sendRawTransaction(await tw.trx.sign(tx, holder.privateKey));
    expect(res.result).toBe(true);
    await devnet.mine(1);
    expect((await account(holder.address.base58))['assetV2']).toEqual([{ key: id, value: 500 }]);
    expect((await account(other.address.base58))['assetV2']).toEqual([{ key: id, value: 200 }]);
    expect((await info(tx.txID)).receipt).toEqual({ net_usage: bandwidthOf(tx.raw_data_hex) });
  });
});

describe('Stake 2.0', () => {
  it('freeze, delegate, undelegate and unfreeze move energy between accounts', async () => {
    const a = await newFunded(5_000_000_000n);
    const b = await newFunded(1_000_000n);
    const twA = new TronWeb({ fullHost: devnet.url, privateKey: a.privateKey });
    const send = async (tx: Types.Transaction) => {
      const res = await twA.trx.sendRawTransaction(await twA.trx.sign(tx));
      expect(res.result).toBe(true);
      await devnet.mine(1);
      return res.txid;
    };
    /** Delegates 400 TRX of A's staked energy to B, or takes it back. */
    const moveEnergyToB = async (action: 'delegateResource' | 'undelegateResource') =>
      send(await twA.transactionBuilder[action](400_000_000, b.address.base58, 'ENERGY', a.address.base58));
    const delegatedToB = () =>
      post(devnet.url, '/wallet/getdelegatedresourcev2', {
        fromAddress: a.address.base58,
        toAddress: b.address.base58,
        visible: true,
      });

    const weightBefore = (await resources(a.address.base58))['TotalEnergyWeight'] as number;
    await send(await twA.transactionBuilder.freezeBalanceV2(2_000_000_000, 'ENERGY', a.address.base58));
    const acc = await account(a.address.base58);
    expect(acc.balance).toBe(3_000_000_000);
    expect(acc['frozenV2']).toEqual([{}, { type: 'ENERGY', amount: 2_000_000_000 }, { type: 'TRON_POWER' }]);
    const res = await resources(a.address.base58);
    expect(res['TotalEnergyWeight']).toBe(weightBefore + 2000);
    const expectedLimit = (2000n * 180_000_000_000n) / BigInt(weightBefore + 2000);
    expect(res['EnergyLimit']).toBe(Number(expectedLimit));

    // A TRC20 call now burns staked energy instead of TRX.
    await devnet.faucetTrc20(devnet.tokens.trc20.USDT, a.address.base58, 10n);
    const call = await buildTrc20Transfer(twA, {
      token: devnet.tokens.trc20.USDT,
      from: a.address.base58,
      to: b.address.base58,
      amount: 1,
      feeLimit: 10_000_000,
    });
    const callId = await send(call.transaction);
    const r = await info(callId);
    expect(r.receipt['energy_usage']).toBe(r.receipt['energy_usage_total']);
    expect(r.receipt['energy_fee']).toBeUndefined();
    expect((await resources(a.address.base58))['EnergyUsed']).toBeGreaterThan(0);

    // Delegate 400 TRX of energy to B.
    await moveEnergyToB('delegateResource');
    expect((await resources(b.address.base58))['EnergyLimit']).toBeGreaterThan(0);
    expect((await account(a.address.base58))['account_resource']).toMatchObject({
      delegated_frozenV2_balance_for_energy: 400_000_000,
    });
    expect((await account(b.address.base58))['account_resource']).toMatchObject({
      acquired_delegated_frozenV2_balance_for_energy: 400_000_000,
    });
    expect(await delegatedToB()).toEqual({
      delegatedResource: [
        { from: a.address.base58, to: b.address.base58, frozen_balance_for_energy: 400_000_000 },
      ],
    });

    // Undelegate it back.
    await moveEnergyToB('undelegateResource');
    expect((await resources(b.address.base58))['EnergyLimit']).toBeUndefined();
    expect(await delegatedToB()).toEqual({});

    // Unfreeze 300 TRX: it waits 14 days in unfrozenV2.
    const head = Number(devnet.chain.headTime);
    await send(await twA.transactionBuilder.unfreezeBalanceV2(300_000_000, 'ENERGY', a.address.base58));
    const after = await account(a.address.base58);
    expect(after['frozenV2']).toEqual([
      {},
      { type: 'ENERGY', amount: 1_700_000_000 },
      { type: 'TRON_POWER' },
    ]);
    expect(after['unfrozenV2']).toEqual([
      { type: 'ENERGY', unfreeze_amount: 300_000_000, unfreeze_expire_time: head + 14 * 86_400_000 },
    ]);
    expect(
      await post(devnet.url, '/wallet/getavailableunfreezecount', {
        owner_address: a.address.base58,
        visible: true,
      }),
    ).toEqual({ count: 31 });
    expect(
      await post(devnet.url, '/wallet/getcanwithdrawunfreezeamount', {
        owner_address: a.address.base58,
        timestamp: head + 14 * 86_400_000,
        visible: true,
      }),
    ).toEqual({ amount: 300_000_000 });
  });

  it('node-built freezebalancev2 (BANDWIDTH) is accepted by TronWeb and staked bandwidth is used first', async () => {
    const a = await newFunded(1_000_000_000n);
    const b = await newFunded(1_000_000n);
    const built = await post<{ txID: string }>(devnet.url, '/wallet/freezebalancev2', {
      owner_address: a.address.base58,
      frozen_balance: 500_000_000,
      resource: 'BANDWIDTH',
      visible: true,
    });
    const res = await tw.trx.sendRawTransaction(await tw.trx.sign(built as never, a.privateKey));
    expect(res.result).toBe(true);
    await devnet.mine(1);
    const before = await resources(a.address.base58);
    expect(before['NetLimit']).toBeGreaterThan(0);
    const freeUsedBefore = before['freeNetUsed'];

    const tx = await tw.transactionBuilder.sendTrx(b.address.base58, 1, a.address.base58);
    await tw.trx.sendRawTransaction(await tw.trx.sign(tx, a.privateKey));
    await devnet.mine(1);
    const after = await resources(a.address.base58);
    expect(after['NetUsed']).toBe((await info(tx.txID)).receipt['net_usage']);
    expect(after['freeNetUsed']).toBeLessThanOrEqual(freeUsedBefore as number);
  });
});

describe('every builder endpoint produces what TronWeb re-encodes byte for byte', () => {
  it('createtransaction (memo, Permission_id), transferasset and the Stake 2.0 builders sign and broadcast', async () => {
    const a = await newFunded(5_000_000_000n);
    const b = await newFunded(1_000_000n);
    const [, assetId] = Object.entries(devnet.tokens.trc10)[0] as [string, string];
    await devnet.faucetTrc10(assetId, a.address.base58, 50n);
    const steps: [string, Record<string, unknown>][] = [
      [
        'createtransaction',
        { to_address: b.address.base58, amount: 1_000, extra_data: 'devnet memo', Permission_id: 2 },
      ],
      ['transferasset', { to_address: b.address.base58, asset_name: assetId, amount: 5 }],
      ['freezebalancev2', { frozen_balance: 2_000_000_000, resource: 'ENERGY' }],
      ['delegateresource', { receiver_address: b.address.base58, balance: 300_000_000, resource: 'ENERGY' }],
      [
        'undelegateresource',
        { receiver_address: b.address.base58, balance: 100_000_000, resource: 'ENERGY' },
      ],
      ['unfreezebalancev2', { unfreeze_balance: 1_000_000_000, resource: 'ENERGY' }],
      ['cancelallunfreezev2', {}],
    ];
    for (const [path, body] of steps) {
      const built = await post<{ txID: string; raw_data: Record<string, unknown> }>(
        devnet.url,
        `/wallet/${path}`,
        {
          owner_address: a.address.base58,
          ...body,
          visible: true,
        },
      );
      expect(built, path).toHaveProperty('txID');
      // trx.sign runs TronWeb's txCheck: raw_data re-encoded locally must equal raw_data_hex and txID.
      const signed = await tw.trx.sign(built as never, a.privateKey);
      const res = await tw.trx.sendRawTransaction(signed);
      expect(res, path).toMatchObject({ result: true, txid: built.txID });
      await devnet.mine(1);
    }
    const acc = await account(a.address.base58);
    expect(acc['frozenV2']).toEqual([{}, { type: 'ENERGY', amount: 1_800_000_000 }, { type: 'TRON_POWER' }]);
    expect(acc['unfrozenV2']).toBeUndefined();
    expect(acc['assetV2']).toEqual([{ key: assetId, value: 45 }]);
  });
});
