// The faucet: a V5R1 wallet with a fixed devnet key (the same address on every start for a network),
// placed on the chain already deployed with an effectively unlimited balance. It pays by signing real
// external messages, so what it sends lands in blocks and reads back like any wallet's transfers.
import { createHash } from 'node:crypto';
import { type Address, type Cell, external, type Message, type MessageRelaxed, SendMode } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { createShardAccount } from '@ton/sandbox';
import { WalletContractV5R1 } from '@ton/ton';
import type { DevnetBlockchain } from './emulator.ts';

/** 10^9 TON, topped up when half is gone; get-methods take a balance below 2^64 nanotons. */
export const FAUCET_NANOTONS = 10n ** 18n;

/** A 32-byte ed25519 seed from a label: for this devnet only. */
export function devnetSeed(label: string): Buffer {
  return createHash('sha256').update(label).digest();
}

export class Faucet {
  readonly wallet: WalletContractV5R1;
  private readonly secretKey: Buffer;

  constructor(
    readonly seed: Buffer,
    globalId: number,
  ) {
    const keys = keyPairFromSeed(seed);
    this.secretKey = keys.secretKey;
    this.wallet = WalletContractV5R1.create({
      workchain: 0,
      publicKey: keys.publicKey,
      walletId: { networkGlobalId: globalId },
    });
  }

  get address(): Address {
    return this.wallet.address;
  }

  /** Puts the wallet on the chain, deployed and funded, unless a saved chain already holds it. */
  async deploy(chain: DevnetBlockchain): Promise<void> {
    if (chain.peek(this.address)?.accountState?.type === 'active') return;
    await chain.setShardAccount(
      this.address,
      createShardAccount({
        address: this.address,
        code: this.wallet.init.code,
        data: this.wallet.init.data,
        balance: FAUCET_NANOTONS,
      }),
    );
  }

  /**
   * The faucet's signed external message carrying `messages`, at its seqno as the chain has it now: built
   * when its turn in the block comes, so any number of faucet sends queue in one block.
   */
  async transfer(chain: DevnetBlockchain, messages: MessageRelaxed[]): Promise<Message> {
    const contract = await chain.getContract(this.address);
    // An unlimited faucet: top it up before it could ever run dry.
    if (contract.balance < FAUCET_NANOTONS / 2n) contract.balance = FAUCET_NANOTONS;
    const seqno = (await chain.runGetMethod(this.address, 'seqno')).stackReader.readNumber();
    const body: Cell = this.wallet.createTransfer({
      seqno,
      secretKey: this.secretKey,
      messages,
      sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
    });
    return external({ to: this.address, body });
  }
}
