import type { QuotaService } from '../accounts/quotas.ts';
import type { FamilyModule } from '../chains/family.ts';
import type { Caller, SendPort } from '../chains/ports.ts';
import type {
  BuiltSend,
  BuiltWalletSend,
  PreparedSend,
  PreparedWalletSend,
  SendRecord,
  SignedBroadcast,
} from '../chains/send-contract.ts';
import type { ChainName } from '../chains/types.ts';
import type { Env } from '../config/setting.ts';
import { type AddressKeys, KeyMismatchError, type SigningProof } from '../custody/address-keys.ts';
import type { HdWallets } from '../custody/hd-wallets.ts';
import { wrongPasswordAnswers } from '../custody/wrong-password.ts';
import { ApiError, VALIDATION_FAILED } from '../errors.ts';
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

/** Who sends, on which chain and network, and under which Idempotency-Key, if any. */
export type SendScope = Caller;

/**
 * Every send of every family, once: the family has checked the request's fields; here the key is
 * unlocked (the address's password, or the caller's private key, which must be `from`'s), one
 * `transactions` unit reserved, the transaction built and signed, its intent recorded in the history
 * (its txid, no answer yet), the transaction broadcast, and the outcome written into that row. A refusal
 * after the reservation gives the unit back.
 *
 * The failure policy, one for all families: every attempt that reached the node or the signing is in
 * the history, refused or not (the node refusing to build it, the pre-flight, the broadcast); a request
 * refused for a malformed field, a wrong password or another address's key leaves no row. A row whose
 * process died before the node answered is settled from the chain (services/send-settler.ts).
 */
export class SendPipeline implements SendPort {
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
      const privateKey = await untilSending(built, async () => {
        // Another address's key is refused once built, so that the refusal can name the transaction (Tron).
        if (key.signs === false) throw family.sends.keyRefused(key.signer, prepared.from, built.txid);
        await scope.attempt?.starting();
        return key.privateKey;
      });
      const entry = this.entry(scope, prepared.record);
      try {
        const sent = await built.send(privateKey, entry.intent);
        await entry.sent(sent.txid);
        return sent.data;
      } catch (error) {
        await entry.failed(error, built.txid);
        throw family.sends.answer(error);
      }
    });
  }

  /**
   * A send from an HD wallet: the same reservation, records and failure policy, with the keys of the
   * wallet's addresses the built transaction spends from, opened with the wallet password (a wrong one
   * answers in the family's words, as on every send) once the coins are chosen.
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
      const keys = await untilSending(built, async () => {
        const opened = await wrongPasswordAnswers(
          () =>
            this.deps.hdWallets.signingKeys({ ...scope, codec }, prepared.wallet, password, [
              ...built.signers,
            ]),
          () => family.sends.wrongPassword(prepared.wallet),
        );
        await scope.attempt?.starting();
        return opened;
      });
      const entry = this.entry(scope, prepared.record);
      try {
        const sent = await built.send(
          new Map(keys.map((key) => [key.address, key.privateKey])),
          entry.intent,
        );
        await entry.sent(sent.txid);
        return sent.data;
      } catch (error) {
        await entry.failed(error, null);
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
      const entry = this.entry(scope, record);
      try {
        const txid = await signed.broadcast(entry.intent);
        await entry.sent(txid);
        return { txid };
      } catch (error) {
        await entry.failed(error, signed.txid);
        throw family.sends.answer(error);
      }
    });
  }

  /**
   * The key of `from` for work that signs later (a sponsored job): the caller proves it as a send does,
   * and another address's key is refused in the family's words.
   */
  async provenKey(scope: SendScope, proof: SigningProof, from: string): Promise<string> {
    const key = await this.signingKey(scope, proof, from);
    if (key.signs === false) throw this.family(scope.chain).sends.keyRefused(key.signer, from, null);
    return key.privateKey;
  }

  private family(chain: ChainName): FamilyModule {
    const family = this.deps.familyOf(chain);
    if (family === undefined) throw new ApiError(404, `Chain ${chain} is not served`);
    return family;
  }

  /**
   * The key that signs for `from`, or the address another key given for it belongs to; a wrong password
   * is refused here, in the family's words (401 `Wrong password provided`; Tron's 422
   * `Validate signature error: …`). Neither leaves a row.
   */
  private async signingKey(scope: SendScope, proof: SigningProof, from: string): Promise<SigningKey> {
    const family = this.family(scope.chain);
    try {
      const privateKey = await wrongPasswordAnswers(
        () =>
          this.deps.addressKeys.signingKey(
            { ...scope, codec: family.keys(scope.network, this.deps.settings) },
            from,
            proof,
          ),
        () => family.sends.wrongPassword(from),
      );
      return { signs: true, privateKey };
    } catch (error) {
      if (error instanceof KeyMismatchError) return { signs: false, signer: error.signer };
      throw error;
    }
  }

  /**
   * The history row of one send from its signing on. The family names the txid before the node gets the
   * transaction (`intent`), and the row is written then, without an answer; the node's answer completes
   * it: 201, or the refusal. A failure that does not say whether the node took the transaction (no
   * answer, a 5xx) leaves it without one, for the settler to settle from the chain.
   */
  private entry(scope: SendScope, record: SendRecord) {
    const log = this.deps.transactions;
    const sends = this.family(scope.chain).sends;
    let id: number | null = null;
    return {
      intent: async (txid: string) => {
        if (id === null) id = await log.recordIntent({ ...entryScope(scope), ...record, txid });
        else await log.retarget(id, txid);
      },
      sent: async (txid: string) => {
        const answer = { txid, response: sends.sentResponse(txid), httpStatus: 201 };
        if (id === null) await log.record({ ...entryScope(scope), ...record, ...answer });
        else await log.answer(id, answer);
      },
      failed: async (error: unknown, txid: string | null) => {
        if (id === null) return this.recordFailure(scope, record, txid, error);
        if (!(error instanceof ApiError) || error.status >= 500 || error.message === VALIDATION_FAILED)
          return;
        await log.answer(id, sends.failureRow(error, txid));
      },
    };
  }

  /** The one policy: refusals past the fields are kept; a malformed field (an amount too fine) is not. */
  private async recordFailure(scope: SendScope, record: SendRecord, txid: string | null, error: unknown) {
    if (!(error instanceof ApiError) || error.message === VALIDATION_FAILED) return;
    const row = this.family(scope.chain).sends.failureRow(error, txid);
    await this.deps.transactions.record({ ...entryScope(scope), ...record, ...row });
  }
}

/** The steps between a build and its send: a send given up there gives back what its build held. */
async function untilSending<T>(built: BuiltSend | BuiltWalletSend, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    await built.abandon?.();
    throw error;
  }
}

/** The history entry's owner, place and idempotency key row. */
function entryScope({ attempt, ...scope }: SendScope) {
  return { ...scope, idempotencyId: attempt?.id ?? null };
}
