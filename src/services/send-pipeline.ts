import type { QuotaService } from '../accounts/quotas.ts';
import type {
  BuiltSend,
  BuiltWalletSend,
  FamilyModule,
  PreparedSend,
  PreparedWalletSend,
  SendRecord,
  SignedBroadcast,
} from '../chains/family.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { Env } from '../config/setting.ts';
import { type AddressKeys, KeyMismatchError, type SigningProof } from '../custody/address-keys.ts';
import type { HdWallets } from '../custody/hd-wallets.ts';
import { ApiError, VALIDATION_FAILED } from '../errors.ts';
import { wrongPasswordIs401 } from './address-custody.ts';
import type { TransactionLog } from './transaction-log.ts';

/** The key that signs for `from`, or the address whose key the caller gave instead. */
type SigningKey = { signs: true; privateKey: string } | { signs: false; signer: string };

export interface SendPipelineDeps {
  addressKeys: AddressKeys;
  hdWallets: HdWallets;
  transactions: TransactionLog;
  /** The families' own settings, which configure their key codecs. */
  settings: Env;
  quotas: QuotaService;
  familyOf: (chain: ChainName) => FamilyModule | undefined;
}

/**
 * The Idempotency-Key a send runs under. `starting` is called once, just before the transaction goes to
 * the node, and throws when the key is no longer this request's (then nothing is sent); the history entry
 * names `id`, so a request cut short by a restart is answered from the history, never sent again.
 */
export interface SendAttempt {
  readonly id: string;
  starting(): Promise<void>;
}

/** Who sends, on which chain and network, and under which Idempotency-Key, if any. */
export interface SendScope {
  userId: string;
  chain: ChainName;
  network: Network;
  attempt?: SendAttempt | null;
}

/**
 * Every send of every family, once: the family has checked the request's fields; here the key is
 * unlocked (the address's password, or the caller's private key, which must be `from`'s), one
 * `transactions` unit reserved, the transaction built, signed and broadcast, and the
 * outcome recorded in the history. A refusal after the reservation gives the unit back.
 *
 * The failure policy, one for all families: every attempt that reached the node or the signing is in
 * the history, refused or not (the node refusing to build it, the pre-flight, the broadcast); a request
 * refused for a malformed field, a wrong password or another address's key leaves no row.
 */
export class SendPipeline {
  constructor(private readonly deps: SendPipelineDeps) {}

  async send(scope: SendScope, proof: SigningProof, prepared: PreparedSend) {
    const family = this.family(scope.chain);
    // The key first: a wrong password is refused (and throttled) before the node is asked anything.
    const key = await this.signingKey(scope, proof, prepared.from);
    // The unit is reserved before the node is asked to build: a caller with no sends left costs no node call.
    return this.deps.quotas.withTransactionQuota(scope.userId, async () => {
      let built: BuiltSend;
      try {
        built = await prepared.build();
      } catch (error) {
        if (key.signs) await this.recordFailure(scope, prepared.record, null, error);
        throw family.sends.answer(error);
      }
      // Another address's key is refused once built, so that the refusal can name the transaction (Tron).
      if (key.signs === false) throw family.sends.keyRefused(key.signer, prepared.from, built.txid);
      await scope.attempt?.starting();
      try {
        const sent = await built.send(key.privateKey);
        await this.recordSent(scope, prepared.record, sent.txid);
        return sent.data;
      } catch (error) {
        await this.recordFailure(scope, prepared.record, built.txid, error);
        throw family.sends.answer(error);
      }
    });
  }

  /**
   * A send from an HD wallet: the same reservation, records and failure policy, with the keys of the
   * wallet's addresses the built transaction spends from, opened with the wallet password (a wrong one
   * is 401, as everywhere) once the coins are chosen.
   */
  async sendFromWallet(scope: SendScope, password: string, prepared: PreparedWalletSend) {
    const family = this.family(scope.chain);
    if (family.hdKeys === undefined) throw new ApiError(404, `Chain ${scope.chain} has no wallets`);
    const codec = family.hdKeys(scope.network, this.deps.settings);
    return this.deps.quotas.withTransactionQuota(scope.userId, async () => {
      let built: BuiltWalletSend;
      try {
        built = await prepared.build();
      } catch (error) {
        await this.recordFailure(scope, prepared.record, null, error);
        throw family.sends.answer(error);
      }
      const keys = await wrongPasswordIs401(() =>
        this.deps.hdWallets.signingKeys({ ...scope, codec }, prepared.wallet, password, [...built.signers]),
      );
      await scope.attempt?.starting();
      try {
        const sent = await built.send(new Map(keys.map((key) => [key.address, key.privateKey])));
        await this.recordSent(scope, prepared.record, sent.txid);
        return sent.data;
      } catch (error) {
        await this.recordFailure(scope, prepared.record, null, error);
        throw family.sends.answer(error);
      }
    });
  }

  /** A transaction signed outside the gateway: the same reservation and records as a send. */
  async broadcast(scope: SendScope, signed: SignedBroadcast): Promise<{ txid: string }> {
    const family = this.family(scope.chain);
    // Read before broadcasting: once the node has the transaction, a failed lookup must not hide it.
    const record = await signed.record();
    return this.deps.quotas.withTransactionQuota(scope.userId, async () => {
      await scope.attempt?.starting();
      try {
        const txid = await signed.broadcast();
        await this.recordSent(scope, record, txid);
        return { txid };
      } catch (error) {
        await this.recordFailure(scope, record, signed.txid, error);
        throw family.sends.answer(error);
      }
    });
  }

  private family(chain: ChainName): FamilyModule {
    const family = this.deps.familyOf(chain);
    if (family === undefined) throw new ApiError(404, `Chain ${chain} is not served`);
    return family;
  }

  /**
   * The key that signs for `from`, or the address another key given for it belongs to; a wrong password
   * is refused here (401, as every custody route answers it). Neither leaves a row.
   */
  private async signingKey(scope: SendScope, proof: SigningProof, from: string): Promise<SigningKey> {
    const family = this.family(scope.chain);
    try {
      const privateKey = await wrongPasswordIs401(() =>
        this.deps.addressKeys.signingKey(
          { ...scope, codec: family.keys(scope.network, this.deps.settings) },
          from,
          proof,
        ),
      );
      return { signs: true, privateKey };
    } catch (error) {
      if (error instanceof KeyMismatchError) return { signs: false, signer: error.signer };
      throw error;
    }
  }

  private async recordSent(scope: SendScope, record: SendRecord, txid: string) {
    await this.deps.transactions.record({
      ...entryScope(scope),
      ...record,
      txid,
      response: this.family(scope.chain).sends.sentResponse(txid),
      httpStatus: 201,
    });
  }

  /** The one policy: refusals past the fields are kept; a malformed field (an amount too fine) is not. */
  private async recordFailure(scope: SendScope, record: SendRecord, txid: string | null, error: unknown) {
    if (!(error instanceof ApiError) || error.message === VALIDATION_FAILED) return;
    const row = this.family(scope.chain).sends.failureRow(error, txid);
    await this.deps.transactions.record({ ...entryScope(scope), ...record, ...row });
  }
}

/** The history entry's owner, place and idempotency key row. */
function entryScope({ attempt, ...scope }: SendScope) {
  return { ...scope, idempotencyId: attempt?.id ?? null };
}
