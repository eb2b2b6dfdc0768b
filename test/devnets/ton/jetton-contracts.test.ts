// The devnet's TEP-74 contracts on the bare emulator, for what the API cannot provoke: refusals (not the
// owner, too little balance), a bounced internal_transfer giving the amount back, burns lowering the supply.
import { type Address, beginCell, type Cell, toNano } from '@ton/core';
import { Blockchain, internal, type SandboxContract, type TreasuryContract } from '@ton/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployMinter, jettonCode, mintMessage, USDT_METADATA } from '../../../devnets/ton/jetton.ts';

let chain: Blockchain;
let admin: SandboxContract<TreasuryContract>;
let master: Address;

beforeAll(async () => {
  chain = await Blockchain.create();
  admin = await chain.treasury('admin');
  master = await deployMinter(chain, await jettonCode(), admin.address, USDT_METADATA);
});

async function walletOf(owner: Address): Promise<Address> {
  const result = await chain.runGetMethod(master, 'get_wallet_address', [
    { type: 'slice', cell: beginCell().storeAddress(owner).endCell() },
  ]);
  return result.stackReader.readAddress();
}

async function balanceOf(owner: Address): Promise<bigint> {
  const wallet = await chain.getContract(await walletOf(owner));
  if (wallet.accountState?.type !== 'active') return 0n;
  return (await chain.runGetMethod(wallet.address, 'get_wallet_data')).stackReader.readBigNumber();
}

async function supply(): Promise<bigint> {
  return (await chain.runGetMethod(master, 'get_jetton_data')).stackReader.readBigNumber();
}

async function mint(owner: Address, units: bigint): Promise<void> {
  const message = mintMessage(master, owner, units, admin.address);
  await admin.send({
    to: master,
    value: message.info.type === 'internal' ? message.info.value.coins : 0n,
    body: message.body,
  });
}

function transferBody(amount: bigint, to: Address, response: Address): Cell {
  return beginCell()
    .storeUint(0x0f8a7ea5, 32)
    .storeUint(1, 64)
    .storeCoins(amount)
    .storeAddress(to)
    .storeAddress(response)
    .storeBit(false)
    .storeCoins(0)
    .storeBit(false)
    .endCell();
}

describe('TON devnet jetton contracts', () => {
  it('refuses a transfer from another sender than the owner, and one above the balance', async () => {
    const alice = await chain.treasury('alice');
    const mallory = await chain.treasury('mallory');
    await mint(alice.address, 1_000n);
    const aliceWallet = await walletOf(alice.address);

    const stolen = await mallory.send({
      to: aliceWallet,
      value: toNano('0.1'),
      body: transferBody(10n, mallory.address, mallory.address),
    });
    const theft = stolen.transactions.find(
      (t) => t.inMessage?.info.dest?.toString() === aliceWallet.toString(),
    );
    expect(
      theft?.description.type === 'generic' &&
        theft.description.computePhase.type === 'vm' &&
        theft.description.computePhase.exitCode,
    ).toBe(705);

    const tooMuch = await alice.send({
      to: aliceWallet,
      value: toNano('0.1'),
      body: transferBody(1_001n, mallory.address, alice.address),
    });
    const refused = tooMuch.transactions.find(
      (t) => t.inMessage?.info.dest?.toString() === aliceWallet.toString(),
    );
    expect(
      refused?.description.type === 'generic' &&
        refused.description.computePhase.type === 'vm' &&
        refused.description.computePhase.exitCode,
    ).toBe(706);
    expect(await balanceOf(alice.address)).toBe(1_000n);
    expect(await balanceOf(mallory.address)).toBe(0n);
  });

  it('gives the amount back when an internal_transfer bounces', async () => {
    const bob = await chain.treasury('bob');
    await mint(bob.address, 500n);
    const bobWallet = await walletOf(bob.address);
    // What the receiving wallet sends back when it fails: 0xFFFFFFFF, then the start of the original body.
    const bounced = beginCell()
      .storeUint(0xffffffff, 32)
      .storeUint(0x178d4519, 32)
      .storeUint(1, 64)
      .storeCoins(200n)
      .endCell();
    await chain.sendMessage(
      internal({
        from: await walletOf(admin.address),
        to: bobWallet,
        value: toNano('0.01'),
        bounced: true,
        body: bounced,
      }),
    );
    expect(await balanceOf(bob.address)).toBe(700n);
  });

  it('a burn lowers the supply, and the excess goes to the response address', async () => {
    const carol = await chain.treasury('carol');
    await mint(carol.address, 300n);
    const before = await supply();
    const burn = beginCell()
      .storeUint(0x595f07bc, 32)
      .storeUint(2, 64)
      .storeCoins(120n)
      .storeAddress(carol.address)
      .storeBit(false)
      .endCell();
    const result = await carol.send({ to: await walletOf(carol.address), value: toNano('0.1'), body: burn });
    expect(await balanceOf(carol.address)).toBe(180n);
    expect(await supply()).toBe(before - 120n);
    const excess = result.transactions.find(
      (t) =>
        t.inMessage?.info.dest?.toString() === carol.address.toString() &&
        t.inMessage.body.beginParse().preloadUint(32) === 0xd53276db,
    );
    expect(excess).toBeDefined();
  });
});
