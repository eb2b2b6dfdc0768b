import type { Kysely } from 'kysely';
import type { QuotaService } from '../accounts/quotas.ts';
import { formatAmount, parseAmount } from '../chains/amount.ts';
import type { EvmAdapter } from '../chains/evm/adapter.ts';
import { evmTransferTypes } from '../chains/evm/chains.ts';
import { EvmContractError } from '../chains/evm/errors.ts';
import { checksumAddress, evmAddressFieldMessage } from '../chains/evm/keys.ts';
import { exportKeystore, importKeystore } from '../chains/evm/keystore.ts';
import {
  erc20DecimalsOrNull,
  HISTORY_NATIVE_TYPE,
  historyType,
  movedAsset,
  signedTransactionFields,
} from '../chains/evm/moved-asset.ts';
import { NonceManager } from '../chains/evm/nonce-manager.ts';
import {
  clientTransaction,
  type UnsignedEvmTransaction,
  withTransactionNonce,
} from '../chains/evm/transactions.ts';
import { GWEI_DECIMALS, WEI_DECIMALS } from '../chains/evm/units.ts';
import type { KeyCodec } from '../chains/family.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import type { ChainName, Network } from '../chains/types.ts';
import { type AddressKeys, KeyMismatchError, type SigningProof } from '../custody/address-keys.ts';
import { WrongPasswordError } from '../custody/key-vault.ts';
import { ApiError, invalidField } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import type { Dialect } from '../store/store.ts';
import { wrongPasswordIs401 } from './address-custody.ts';
import { historyAmount, type TransactionLog } from './transaction-log.ts';

export interface EvmDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  registry: ChainRegistry;
  addressKeys: AddressKeys;
  transactions: TransactionLog;
  quotas: QuotaService;
  keys: KeyCodec;
}

/** The optional fields every EVM send accepts; gas prices in gwei (as `gasprice` answers), gas in units. */
export interface EvmSendOptions {
  gas?: unknown;
  gasprice?: unknown;
  maxFeePerGas?: unknown;
  maxPriorityFeePerGas?: unknown;
  nonce?: unknown;
  data?: unknown;
}

type Send = SigningProof & EvmSendOptions & { from: string; to: string };

/** What the history says of a send besides from, to and amount. */
interface SendKind {
  type: string;
  contractaddress: string | null;
  tokenid: string | null;
}

/** A send made ready: the amount as the history shows it, and how to build the transaction. */
interface PreparedSend {
  amount: string;
  build: (overrides: ReturnType<typeof overridesOf>) => Promise<UnsignedEvmTransaction>;
}

/** The EVM use cases behind the routes of ethereum, bsc, polygon and arbitrum. */
export class EvmService {
  private readonly nonces: NonceManager;

  constructor(private readonly deps: EvmDeps) {
    this.nonces = new NonceManager(deps.db, deps.dialect);
  }

  adapter(chain: ChainName, network: Network): EvmAdapter {
    return this.deps.registry.get<EvmAdapter>(chain, network);
  }

  /** The chain's names of what a transfer moves (BSC: BNB, BEP20, BEP721). */
  private transferTypes(chain: ChainName, network: Network) {
    return evmTransferTypes(this.adapter(chain, network).chain);
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

  // --- token, gas and NFT reads (the reads every chain has: chains/evm/reads.ts) ----------------

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

  // --- sends -----------------------------------------------------------------------------------

  async sendNative(userId: string, chain: ChainName, network: Network, body: Send & { amount: unknown }) {
    const wei = amountOf(body.amount, WEI_DECIMALS);
    const kind = { type: HISTORY_NATIVE_TYPE, contractaddress: null, tokenid: null };
    return this.send(userId, chain, network, body, kind, async (adapter) => ({
      amount: historyAmount(wei, WEI_DECIMALS),
      build: (o) => adapter.buildTransfer(body.from, body.to, wei, o),
    }));
  }

  async sendToken(
    userId: string,
    chain: ChainName,
    network: Network,
    body: Send & { amount: unknown; contractaddress: string },
  ) {
    const contract = requiredAddress('contractaddress', body.contractaddress);
    const kind = {
      type: this.transferTypes(chain, network).fungible,
      contractaddress: checksumAddress(contract),
      tokenid: null,
    };
    return this.send(userId, chain, network, body, kind, async (adapter) => {
      const decimals = await tokenDecimals(adapter, contract);
      const units = amountOf(body.amount, decimals);
      return {
        amount: historyAmount(units, decimals),
        build: (o) => adapter.buildErc20Transfer(body.from, body.to, contract, units, o),
      };
    });
  }

  async sendNft(
    userId: string,
    chain: ChainName,
    network: Network,
    body: Send & { contractaddress: string; tokenId: unknown },
  ) {
    const contract = requiredAddress('contractaddress', body.contractaddress);
    const tokenId = tokenIdOf(body.tokenId);
    const kind = {
      type: this.transferTypes(chain, network).nft,
      contractaddress: checksumAddress(contract),
      tokenid: tokenId.toString(),
    };
    return this.send(userId, chain, network, body, kind, async (adapter) => ({
      amount: historyAmount(1n, 0),
      build: (o) => adapter.buildErc721Transfer(body.from, body.to, contract, tokenId, o),
    }));
  }

  /** An unsigned transaction to sign elsewhere; nothing is sent or stored. */
  async build(
    chain: ChainName,
    network: Network,
    body: EvmSendOptions & {
      from: string;
      to: string;
      amount?: unknown;
      contractaddress?: string;
      tokenId?: unknown;
    },
  ) {
    const adapter = this.adapter(chain, network);
    requiredAddress('from', body.from);
    requiredAddress('to', body.to);
    if (body.contractaddress) requiredAddress('contractaddress', body.contractaddress);
    const overrides = overridesOf(body);
    let tx: UnsignedEvmTransaction;
    if (body.contractaddress && body.tokenId !== undefined && body.tokenId !== '') {
      tx = await adapter.buildErc721Transfer(
        body.from,
        body.to,
        body.contractaddress,
        tokenIdOf(body.tokenId),
        overrides,
      );
    } else if (body.contractaddress) {
      const decimals = await tokenDecimals(adapter, body.contractaddress);
      tx = await adapter.buildErc20Transfer(
        body.from,
        body.to,
        body.contractaddress,
        amountOf(body.amount, decimals),
        overrides,
      );
    } else {
      tx = await adapter.buildTransfer(body.from, body.to, amountOf(body.amount, WEI_DECIMALS), overrides);
    }
    return { tx: clientTransaction(tx), unsigned: tx.serialized };
  }

  /** Relays a transaction signed elsewhere; the history records what it does, read from it. */
  async broadcast(userId: string, chain: ChainName, network: Network, rawtx: string) {
    const adapter = this.adapter(chain, network);
    return this.deps.quotas.withTransactionQuota(userId, async () => {
      try {
        const txid = await adapter.broadcast(rawtx);
        const entry = await broadcastEntry(adapter, rawtx);
        await this.deps.transactions.record({
          userId,
          chain,
          network,
          ...entry,
          txid,
          response: { txid },
          httpStatus: 201,
        });
        return { txid };
      } catch (error) {
        // Reading the entry may ask the node for decimals: only for a refusal the history keeps.
        if (isRecordedFailure(error)) {
          await this.recordFailure(userId, chain, network, await broadcastEntry(adapter, rawtx), error);
        }
        throw error;
      }
    });
  }

  /**
   * Prove the key, then (with one transactions unit reserved) prepare and build the transaction, which
   * refuses a token transfer that cannot work, take the next nonce for `from` under the database lock,
   * sign with it and broadcast. A refusal before the nonce gives the unit back and takes no nonce; every
   * outcome is recorded in the history.
   */
  private async send(
    userId: string,
    chain: ChainName,
    network: Network,
    body: Send,
    kind: SendKind,
    prepare: (adapter: EvmAdapter) => Promise<PreparedSend>,
  ) {
    const adapter = this.adapter(chain, network);
    const from = checksumAddress(requiredAddress('from', body.from));
    const to = checksumAddress(requiredAddress('to', body.to));
    const key = await this.signingKey(userId, chain, network, body);
    const overrides = overridesOf(body);
    const entry: SendKind & { from: string; to: string; amount: string | null } = {
      ...kind,
      from,
      to,
      amount: null,
    };
    return this.deps.quotas.withTransactionQuota(userId, async () => {
      try {
        const prepared = await prepare(adapter);
        entry.amount = prepared.amount;
        const tx = await prepared.build(overrides);
        const txid = await this.signAndBroadcast(chain, network, adapter, tx, key, overrides.nonce);
        await this.deps.transactions.record({
          userId,
          chain,
          network,
          ...entry,
          txid,
          response: { txid },
          httpStatus: 201,
        });
        return { txid };
      } catch (error) {
        await this.recordFailure(userId, chain, network, entry, error);
        throw error;
      }
    });
  }

  /** With a caller's nonce as is; otherwise with the next nonce from the nonce manager. */
  private async signAndBroadcast(
    chain: ChainName,
    network: Network,
    adapter: EvmAdapter,
    tx: UnsignedEvmTransaction,
    key: string,
    nonce: bigint | undefined,
  ): Promise<string> {
    if (nonce !== undefined) return adapter.broadcast((await adapter.sign(tx, key)).raw);
    const sent = await this.nonces.send(
      { chain, network, address: tx.from },
      adapter,
      async (n) => (await adapter.sign(withTransactionNonce(tx, n), key)).raw,
    );
    return sent.hash;
  }

  private async signingKey(
    userId: string,
    chain: ChainName,
    network: Network,
    proof: SigningProof & { from: string },
  ) {
    try {
      return await this.deps.addressKeys.signingKey(this.scope(userId, chain, network), proof.from, proof);
    } catch (error) {
      if (error instanceof WrongPasswordError) throw new ApiError(401, 'Wrong password provided');
      if (error instanceof KeyMismatchError)
        throw new ApiError(422, `The private key does not belong to ${checksumAddress(proof.from)}`);
      throw error;
    }
  }

  private async recordFailure(
    userId: string,
    chain: ChainName,
    network: Network,
    entry: HistoryEntry,
    error: unknown,
  ) {
    if (!isRecordedFailure(error)) return;
    await this.deps.transactions.record({
      userId,
      chain,
      network,
      ...entry,
      txid: null,
      response: { error: error.message },
      httpStatus: error.status,
    });
  }
}

/** A history entry's fields besides the user, chain, txid and answer. */
interface HistoryEntry {
  type: string;
  from: string | null;
  to: string | null;
  amount: string | null;
  contractaddress?: string | null;
  tokenid?: string | null;
}

/**
 * The history fields of a signed transaction: its signer, and what it moves (coin, a token, an NFT).
 * Another call is `raw`; what cannot be read as a signed transaction leaves every field null.
 */
async function broadcastEntry(adapter: EvmAdapter, rawtx: string): Promise<HistoryEntry> {
  const signed = await signedTransactionFields(rawtx);
  if (signed === null) {
    return { type: 'raw', from: null, to: null, amount: null, contractaddress: null, tokenid: null };
  }
  const transfer = await movedAsset(adapter.chain, signed, erc20DecimalsOrNull(adapter));
  return {
    type: historyType(transfer),
    from: transfer.from,
    to: transfer.to,
    amount: transfer.decimals === null ? null : historyAmount(transfer.units, transfer.decimals),
    contractaddress: transfer.contract,
    tokenid: transfer.tokenId?.toString() ?? null,
  };
}

/** The history keeps refusals of a request, not a wrong password nor the gateway's or node's trouble. */
function isRecordedFailure(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status < 500 && error.status !== 401;
}

/** The address in `field`, or a 422 field error: not an address, or a mixed-case typo (EIP-55). */
function requiredAddress(field: string, address: unknown): string {
  const message = evmAddressFieldMessage(field, address);
  if (message !== null) throw invalidField(field, message);
  return String(address);
}

/** A token send needs decimals: no code is 422 `not a token contract`; code without decimals() is 400. */
async function tokenDecimals(adapter: EvmAdapter, contract: string): Promise<number> {
  await adapter.requireTokenContract(contract);
  return contractRead(() => adapter.getErc20Decimals(contract));
}

/** Contract reads answer 400 when the address is not the contract the route needs. */
async function contractRead<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof EvmContractError) throw new ApiError(400, error.message);
    throw error;
  }
}

function amountOf(raw: unknown, decimals: number): bigint {
  try {
    return parseAmount(raw, decimals);
  } catch (error) {
    throw invalidField('amount', `The amount field is invalid: ${(error as Error).message}.`);
  }
}

function tokenIdOf(raw: unknown): bigint {
  const text = String(raw ?? '').trim();
  if (!/^\d{1,78}$/.test(text)) throw invalidField('tokenId', 'The tokenId field must be a whole number.');
  return BigInt(text);
}

/** Caller overrides: gas in units, prices in gwei (decimal), nonce, data hex. */
function overridesOf(body: EvmSendOptions) {
  const gwei = (field: keyof EvmSendOptions) => {
    const value = body[field];
    if (value === undefined || value === null || value === '') return undefined;
    try {
      return parseAmount(value, GWEI_DECIMALS);
    } catch (error) {
      throw invalidField(field, `The ${field} field (gwei) is invalid: ${(error as Error).message}.`);
    }
  };
  const whole = (field: keyof EvmSendOptions) => {
    const value = body[field];
    if (value === undefined || value === null || value === '') return undefined;
    if (!/^\d{1,20}$/.test(String(value)))
      throw invalidField(field, `The ${field} field must be a whole number.`);
    return BigInt(String(value));
  };
  const data =
    body.data === undefined || body.data === null || body.data === '' ? undefined : String(body.data);
  if (data !== undefined && !/^0x([0-9a-fA-F]{2})*$/.test(data))
    throw invalidField('data', 'The data field must be 0x-prefixed hex.');
  return {
    gas: whole('gas'),
    nonce: whole('nonce'),
    gasprice: gwei('gasprice'),
    maxFeePerGas: gwei('maxFeePerGas'),
    maxPriorityFeePerGas: gwei('maxPriorityFeePerGas'),
    data: data as `0x${string}` | undefined,
  };
}
