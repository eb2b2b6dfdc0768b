// Faucet: real signed transactions from the genesis faucet key, mined at once, so funds arrive
// through blocks the way a watcher would see them.
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { type HexAddress, parseAddress } from './address.ts';
import { buildTransaction } from './builder.ts';
import type { TronChain } from './chain.ts';
import { functionSelector } from './contract-json.ts';
import type { ContractValue } from './contract-types.ts';
import { signHash } from './signature.ts';
import { txIdOf } from './transaction.ts';
import type { TransactionInfo } from './transaction-info.ts';

const FEE_LIMIT = 1_000_000_000n;

function word(value: bigint): string {
  return value.toString(16).padStart(64, '0');
}

function must(address: string): HexAddress {
  const hex = parseAddress(address);
  if (!hex) throw new Error(`invalid Tron address ${address}`);
  return hex;
}

export class Faucet {
  constructor(
    private readonly chain: TronChain,
    private readonly key: Uint8Array,
    readonly address: HexAddress,
  ) {}

  private async send(type: string, value: ContractValue, feeLimit?: bigint): Promise<TransactionInfo> {
    const tx = buildTransaction(
      this.chain,
      type,
      value,
      feeLimit ? { feeLimit, referenceHead: true } : { referenceHead: true },
    );
    tx.signatures = [signHash(hexToBytes(txIdOf(tx.raw)), this.key)];
    const info = await this.chain.submit(tx);
    await this.chain.mine(1);
    if (info.failed) throw new Error(`faucet ${type} failed: ${info.resMessage}`);
    return info;
  }

  async trx(to: string, sun: bigint): Promise<string> {
    const info = await this.send('TransferContract', {
      owner_address: this.address,
      to_address: must(to),
      amount: sun,
    });
    return info.id;
  }

  async trc10(assetId: string, to: string, units: bigint): Promise<string> {
    const info = await this.send('TransferAssetContract', {
      asset_name: new TextEncoder().encode(assetId),
      owner_address: this.address,
      to_address: must(to),
      amount: units,
    });
    return info.id;
  }

  private trigger(contract: string, data: string): Promise<TransactionInfo> {
    return this.send(
      'TriggerSmartContract',
      { owner_address: this.address, contract_address: must(contract), data: hexToBytes(data) },
      FEE_LIMIT,
    );
  }

  async trc20(contract: string, to: string, units: bigint): Promise<string> {
    const recipient = BigInt(`0x${must(to).slice(2)}`);
    const info = await this.trigger(
      contract,
      functionSelector('mint(address,uint256)') + word(recipient) + word(units),
    );
    return info.id;
  }

  /** Mints the next token to `to` and returns its id. */
  async trc721(contract: string, to: string): Promise<bigint> {
    const recipient = BigInt(`0x${must(to).slice(2)}`);
    const info = await this.trigger(contract, functionSelector('mint(address)') + word(recipient));
    return BigInt(`0x${bytesToHex(info.contractResult) || '0'}`);
  }
}
