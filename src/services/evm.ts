import { formatAmount } from '../chains/amount.ts';
import type { EvmAdapter, RpcObject } from '../chains/evm/adapter.ts';
import { contractRead, erc20DecimalsOrNull } from '../chains/evm/contract-read.ts';
import { checksumAddress } from '../chains/evm/keys.ts';
import { exportKeystore, importKeystore } from '../chains/evm/keystore.ts';
import {
  lookupAmount,
  type MovedAsset,
  movedAsset,
  nodeTransactionFields,
  optionalAddress,
} from '../chains/evm/moved-asset.ts';
import { transactionOutcome } from '../chains/evm/outcome.ts';
import { tokenIdOf } from '../chains/evm/request-fields.ts';
import type { KeyCodec } from '../chains/family.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { AddressKeys } from '../custody/address-keys.ts';
import { WrongPasswordError } from '../custody/key-vault.ts';
import { ApiError, invalidField } from '../errors.ts';
import { wrongPasswordIs401 } from './address-custody.ts';

export interface EvmDeps {
  registry: ChainRegistry;
  addressKeys: AddressKeys;
  keys: KeyCodec;
}

const WEI_DECIMALS = 18;
const GWEI_DECIMALS = 9;

/** The EVM use cases behind the routes of ethereum, bsc, polygon and arbitrum (sends: chains/evm/sends.ts). */
export class EvmService {
  constructor(private readonly deps: EvmDeps) {}

  adapter(chain: ChainName, network: Network): EvmAdapter {
    return this.deps.registry.get<EvmAdapter>(chain, network);
  }

  private scope(userId: string, chain: ChainName, network: Network) {
    return { userId, chain, network, codec: this.deps.keys };
  }

  // --- addresses -------------------------------------------------------------------------------

  async importPrivateKey(
    userId: string,
    chain: ChainName,
    network: Network,
    privateKey: string,
    password?: string,
  ) {
    this.adapter(chain, network);
    const pair = await this.deps.addressKeys.import(this.scope(userId, chain, network), privateKey, password);
    return { address: pair.address, publicKey: pair.publicKey };
  }

  /** A keystore v3 file (scrypt or pbkdf2) opened with its password, which then protects the stored key. */
  async importKeystore(
    userId: string,
    chain: ChainName,
    network: Network,
    content: unknown,
    filename: string,
    password: string,
  ) {
    this.adapter(chain, network);
    let parsed: unknown = content;
    if (typeof content === 'string') {
      try {
        parsed = JSON.parse(content);
      } catch {
        throw invalidField('content', 'The content field must be a keystore v3 JSON document.');
      }
    }
    let pair: Awaited<ReturnType<typeof importKeystore>>;
    try {
      pair = await importKeystore(parsed, password, { owner: userId });
    } catch (error) {
      if (error instanceof WrongPasswordError) throw new ApiError(401, 'Wrong password provided');
      throw error;
    }
    await this.deps.addressKeys.import(this.scope(userId, chain, network), pair.privateKey, password);
    return { filename, content: parsed, address: pair.address };
  }

  async exportKeystore(
    userId: string,
    chain: ChainName,
    network: Network,
    address: string,
    password: string,
  ) {
    const key = await wrongPasswordIs401(() =>
      this.deps.addressKeys.exportKey(this.scope(userId, chain, network), address, password),
    );
    return exportKeystore(key, password, { caller: { owner: userId } });
  }

  async exportPrivateKey(
    userId: string,
    chain: ChainName,
    network: Network,
    address: string,
    password: string,
  ) {
    const key = await wrongPasswordIs401(() =>
      this.deps.addressKeys.exportKey(this.scope(userId, chain, network), address, password),
    );
    return { private_key: `0x${key}` };
  }

  // --- reads -----------------------------------------------------------------------------------

  async blockNumber(chain: ChainName, network: Network) {
    return { blocknumber: Number(await this.adapter(chain, network).getBlockNumber()) };
  }

  async block(chain: ChainName, network: Network, id: string) {
    const block = await this.adapter(chain, network).getBlock(/^\d+$/.test(id) ? BigInt(id) : id);
    if (block === null) throw new ApiError(404, 'Block not found');
    return { ...block, miner: optionalAddress(block['miner']) ?? block['miner'] };
  }

  /** The spec's transaction view: the node's fields in decimal, `gasPrice` in gwei, the amount moved. */
  async transaction(chain: ChainName, network: Network, hash: string) {
    const adapter = this.adapter(chain, network);
    const tx = await adapter.getTransaction(hash);
    if (tx === null) throw new ApiError(422, 'transaction not found');
    const transfer = await decodeTransfer(adapter, tx);
    const dec = (key: string) =>
      tx[key] === undefined || tx[key] === null ? null : BigInt(String(tx[key])).toString();
    const gwei = (key: string) =>
      tx[key] === undefined || tx[key] === null
        ? null
        : formatAmount(BigInt(String(tx[key])), GWEI_DECIMALS, { fixed: 10 });
    return {
      transaction: {
        blockHash: (tx['blockHash'] as string | null) ?? null,
        blockNumber: dec('blockNumber'),
        from: checksumAddress(String(tx['from'])),
        gas: dec('gas'),
        gasPrice: gwei('gasPrice'),
        hash: String(tx['hash']),
        nonce: dec('nonce'),
        to: optionalAddress(tx['to']),
        transactionIndex: dec('transactionIndex'),
        maxFeePerGas: gwei('maxFeePerGas'),
        maxPriorityFeePerGas: gwei('maxPriorityFeePerGas'),
        amount: lookupAmount(transfer),
        contractaddress: transfer.contract,
        type: transfer.type,
      },
    };
  }

  async decodedTransaction(chain: ChainName, network: Network, hash: string) {
    const adapter = this.adapter(chain, network);
    const tx = await adapter.getTransaction(hash);
    if (tx === null) throw new ApiError(422, 'transaction not found');
    const [receipt, head] = await Promise.all([adapter.getReceipt(hash), adapter.getBlockNumber()]);
    const transfer = await decodeTransfer(adapter, tx);
    const blocknumber = tx['blockNumber'] ? Number(BigInt(String(tx['blockNumber']))) : null;
    return {
      transaction: {
        txid: String(tx['hash']),
        from: transfer.from,
        to: transfer.to,
        amount: lookupAmount(transfer),
        contractaddress: transfer.contract,
        tokenid: transfer.tokenId?.toString() ?? null,
        blocknumber,
        confirmations: blocknumber === null ? 0 : Math.max(0, Number(head) - blocknumber + 1),
        status: transactionOutcome(tx, receipt).status,
        type: transfer.type,
      },
    };
  }

  async receipt(chain: ChainName, network: Network, hash: string, decoded: boolean) {
    const adapter = this.adapter(chain, network);
    const receipt = await adapter.getReceipt(hash);
    if (receipt === null) throw new ApiError(422, 'transaction not found');
    if (!decoded) return { transaction: checksummedReceipt(receipt) };
    // The input tells whether a token transfer was asked for, whose Transfer event must then be there.
    const tx = await adapter.getTransaction(hash);
    const num = (key: string) => BigInt(String(receipt[key] ?? 0));
    const fee = num('gasUsed') * num('effectiveGasPrice');
    return {
      txid: String(receipt['transactionHash']),
      status: transactionOutcome(tx, receipt).status,
      blocknumber: Number(num('blockNumber')),
      from: checksumAddress(String(receipt['from'])),
      to: optionalAddress(receipt['to']),
      gasUsed: num('gasUsed').toString(),
      effectiveGasPrice: formatAmount(num('effectiveGasPrice'), GWEI_DECIMALS),
      fee: formatAmount(fee, WEI_DECIMALS),
      contractaddress: optionalAddress(receipt['contractAddress']),
      logs: ((receipt['logs'] as RpcObject[] | undefined) ?? []).length,
    };
  }

  async balance(chain: ChainName, network: Network, address: string) {
    const adapter = this.adapter(chain, network);
    return formatAmount(await adapter.getBalance(address), WEI_DECIMALS, { fixed: WEI_DECIMALS });
  }

  async tokenBalance(chain: ChainName, network: Network, address: string, contract: string) {
    const { balance, decimals } = await contractRead(() =>
      this.adapter(chain, network).getErc20Balance(address, contract),
    );
    return formatAmount(balance, decimals, { fixed: decimals });
  }

  async tokenInfo(chain: ChainName, network: Network, contract: string) {
    const info = await contractRead(() => this.adapter(chain, network).getErc20Info(contract));
    return {
      address: info.address,
      symbol: info.symbol,
      name: info.name,
      decimals: info.decimals,
      totalSupply: info.totalSupply.toString(),
    };
  }

  async gasPrice(chain: ChainName, network: Network) {
    const wei = await this.adapter(chain, network).getGasPrice();
    return { gasPrice: formatAmount(wei, GWEI_DECIMALS) };
  }

  async nftOwner(chain: ChainName, network: Network, contract: string, tokenId: string) {
    return {
      owner: await contractRead(() => this.adapter(chain, network).nftOwner(contract, tokenIdOf(tokenId))),
    };
  }

  async nftUri(chain: ChainName, network: Network, contract: string, tokenId: string) {
    return {
      uri: await contractRead(() => this.adapter(chain, network).nftUri(contract, tokenIdOf(tokenId))),
    };
  }
}

/** What a transaction the node returned moves. */
function decodeTransfer(adapter: EvmAdapter, tx: RpcObject): Promise<MovedAsset> {
  return movedAsset(adapter.chain, nodeTransactionFields(tx), erc20DecimalsOrNull(adapter));
}

/** The node's receipt with its addresses (sender, receiver, created contract, log emitters) checksummed. */
function checksummedReceipt(receipt: RpcObject): RpcObject {
  const logs = Array.isArray(receipt['logs']) ? (receipt['logs'] as unknown[]) : null;
  return {
    ...receipt,
    from: optionalAddress(receipt['from']),
    to: optionalAddress(receipt['to']),
    contractAddress: optionalAddress(receipt['contractAddress']),
    ...(logs === null
      ? {}
      : {
          logs: logs.map((log) =>
            typeof log === 'object' && log !== null && 'address' in log
              ? { ...log, address: optionalAddress(log.address) }
              : log,
          ),
        }),
  };
}
