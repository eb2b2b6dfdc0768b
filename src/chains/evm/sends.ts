/**
 * The EVM side of the send pipeline (services/send-pipeline.ts): each send's fields checked, its
 * transaction built, signed with the next nonce of the nonce manager and broadcast; the unsigned builds
 * and the broadcasts of transactions signed elsewhere.
 */
import type { Kysely } from 'kysely';
import type { Hex } from 'viem';
import type { Database } from '../../store/schema.ts';
import type { Dialect } from '../../store/store.ts';
import { assetAmount } from '../amount.ts';
import type { ChainRegistry } from '../registry.ts';
import type { BuiltSend, PreparedSend, SendIntent, SendRecord, SignedBroadcast } from '../send-contract.ts';
import type { ChainName, Network } from '../types.ts';
import { EvmAdapter } from './adapter.ts';
import { evmTransferTypes } from './chains.ts';
import { tokenDecimals } from './contract-read.ts';
import { refuseUnaffordable, signedSpendReader, spendOf } from './funds-in-flight.ts';
import { isHex } from './hex.ts';
import { checksumAddress } from './keys.ts';
import {
  erc20DecimalsOrNull,
  HISTORY_NATIVE_TYPE,
  historyType,
  movedAsset,
  signedTransactionFields,
} from './moved-asset.ts';
import { type FundsCheck, NonceManager } from './nonce-manager.ts';
import {
  amountOf,
  type EvmSendOptions,
  type EvmSendOverrides,
  overridesOf,
  requiredAddress,
  tokenIdOf,
} from './request-fields.ts';
import {
  clientTransaction,
  transactionHash,
  type UnsignedEvmTransaction,
  withTransactionNonce,
} from './transactions.ts';
import { WEI_DECIMALS } from './units.ts';

type SendFields = EvmSendOptions & { from: string; to: string };

export interface EvmSendsDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  registry: ChainRegistry;
}

/** The sends of ethereum, bsc, polygon and arbitrum. */
export class EvmSends {
  private readonly nonces: NonceManager;

  constructor(private readonly deps: EvmSendsDeps) {
    this.nonces = new NonceManager(deps.db, deps.dialect);
  }

  private adapter(chain: ChainName, network: Network): EvmAdapter {
    return this.deps.registry.adapterOf(chain, network, EvmAdapter);
  }

  native(chain: ChainName, network: Network, body: SendFields & { amount: unknown }): PreparedSend {
    const wei = amountOf(body.amount, WEI_DECIMALS);
    return this.prepare(chain, network, body, { type: HISTORY_NATIVE_TYPE }, async (adapter, overrides) => ({
      amount: assetAmount(wei, WEI_DECIMALS),
      tx: await adapter.buildTransfer(body.from, body.to, wei, overrides),
    }));
  }

  token(
    chain: ChainName,
    network: Network,
    body: SendFields & { amount: unknown; contractaddress: string },
  ): PreparedSend {
    const contract = requiredAddress('contractaddress', body.contractaddress);
    const kind = this.contractKind(chain, network, 'fungible', contract);
    return this.prepare(chain, network, body, kind, async (adapter, overrides) => {
      const decimals = await tokenDecimals(adapter, contract);
      const units = amountOf(body.amount, decimals);
      return {
        amount: assetAmount(units, decimals),
        tx: await adapter.buildErc20Transfer(body.from, body.to, contract, units, overrides),
      };
    });
  }

  nft(
    chain: ChainName,
    network: Network,
    body: SendFields & { contractaddress: string; tokenId: unknown },
  ): PreparedSend {
    const contract = requiredAddress('contractaddress', body.contractaddress);
    const tokenId = tokenIdOf(body.tokenId);
    const kind = { ...this.contractKind(chain, network, 'nft', contract), tokenid: tokenId.toString() };
    return this.prepare(chain, network, body, kind, async (adapter, overrides) => ({
      amount: assetAmount(1n, 0),
      tx: await adapter.buildErc721Transfer(body.from, body.to, contract, tokenId, overrides),
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

  /** A transaction signed elsewhere; the history records what it does, read from it. */
  signed(chain: ChainName, network: Network, rawtx: string): SignedBroadcast {
    const adapter = this.adapter(chain, network);
    return {
      txid: null,
      record: () => broadcastRecord(adapter, rawtx),
      broadcast: async (intent) => {
        // What is not hex has no hash; the adapter refuses it before any node sees it.
        if (isBroadcastable(rawtx)) await intent(transactionHash(rawtx));
        return adapter.broadcast(rawtx);
      },
    };
  }

  /**
   * A send whose fields are checked: `build` reads what it needs (token decimals, which may refuse a
   * contract) and builds the transaction, which refuses a token transfer that cannot work; `send` signs
   * with the caller's nonce or the next one the nonce manager gives `from` under the database lock.
   */
  /** How the history names a send of a contract's token: the chain's word for the standard, and the contract. */
  private contractKind(chain: ChainName, network: Network, standard: 'fungible' | 'nft', contract: string) {
    return {
      type: evmTransferTypes(this.adapter(chain, network).chain)[standard],
      contractaddress: checksumAddress(contract),
    };
  }

  private prepare(
    chain: ChainName,
    network: Network,
    body: SendFields,
    kind: { type: string; contractaddress?: string; tokenid?: string },
    build: (
      adapter: EvmAdapter,
      overrides: EvmSendOverrides,
    ) => Promise<{ amount: string; tx: UnsignedEvmTransaction }>,
  ): PreparedSend {
    const adapter = this.adapter(chain, network);
    const from = checksumAddress(requiredAddress('from', body.from));
    const to = checksumAddress(requiredAddress('to', body.to));
    const overrides = overridesOf(body);
    const record: SendRecord = {
      type: kind.type,
      from,
      to,
      amount: null,
      contractaddress: kind.contractaddress ?? null,
      tokenid: kind.tokenid ?? null,
    };
    return {
      from: body.from,
      record,
      build: async (): Promise<BuiltSend> => {
        const built = await build(adapter, overrides);
        record.amount = built.amount;
        return {
          txid: null,
          send: async (key, intent) => {
            const txid = await this.signAndBroadcast(
              { chain, network, adapter, intent },
              built.tx,
              key,
              overrides.nonce,
            );
            return { txid, data: { txid } };
          },
        };
      },
    };
  }

  /**
   * With a caller's nonce as is; otherwise with the next nonce from the nonce manager, once the sender is
   * seen to hold enough for this send and its sends still in flight.
   */
  private async signAndBroadcast(
    {
      chain,
      network,
      adapter,
      intent,
    }: { chain: ChainName; network: Network; adapter: EvmAdapter; intent: SendIntent },
    tx: UnsignedEvmTransaction,
    key: string,
    nonce: bigint | undefined,
  ): Promise<string> {
    if (nonce !== undefined) {
      const signed = await adapter.sign(tx, key);
      await intent(signed.hash);
      return adapter.broadcast(signed.raw);
    }
    const sent = await this.nonces.send(
      { chain, network, address: tx.from },
      adapter,
      async (n) => (await adapter.sign(await withTransactionNonce(tx, n), key)).raw,
      fundsCheck(adapter, tx),
      intent,
    );
    return sent.hash;
  }
}

/** The sender's coin (and the send's token) against what `tx` and the sends in flight can take. */
export function fundsCheck(adapter: EvmAdapter, tx: UnsignedEvmTransaction): FundsCheck {
  const spend = spendOf(tx);
  return async () => {
    const spendOfSigned = await signedSpendReader();
    const [coin, token] = await Promise.all([
      adapter.getBalance(tx.from),
      spend.token === null
        ? null
        : adapter.getErc20Balance(tx.from, spend.token.contract).then((held) => held.balance),
    ]);
    return (inFlight) => refuseUnaffordable({ coin, token }, spend, inFlight.map(spendOfSigned));
  };
}

/**
 * The history fields of a signed transaction: its signer, and what it moves (coin, a token, an NFT).
 * Another call is `raw`; what cannot be read as a signed transaction leaves every field null.
 */
async function broadcastRecord(adapter: EvmAdapter, rawtx: string): Promise<SendRecord> {
  const signed = await signedTransactionFields(rawtx);
  if (signed === null) {
    return { type: 'raw', from: null, to: null, amount: null, contractaddress: null, tokenid: null };
  }
  const transfer = await movedAsset(adapter.chain, signed, erc20DecimalsOrNull(adapter));
  return {
    type: historyType(transfer),
    from: transfer.from,
    to: transfer.to,
    amount: transfer.decimals === null ? null : assetAmount(transfer.units, transfer.decimals),
    contractaddress: transfer.contract,
    tokenid: transfer.tokenId?.toString() ?? null,
  };
}

/** Hex the adapter would hand to the node, so a transaction hash can be read from it. */
function isBroadcastable(raw: string): raw is Hex {
  return isHex(raw) && raw.length >= 4 && raw.length % 2 === 0;
}
