import type { Kysely } from 'kysely';
import type { QuotaService } from '../accounts/quotas.ts';
import type { ChainName, Network } from '../chains/types.ts';
import type { Database } from '../store/schema.ts';
import { FULL_KDF_COST } from './kdf-cost.ts';
import { sealKey } from './key-vault.ts';
import type { PasswordTarget, PasswordThrottle } from './password-throttle.ts';
import type { ScryptCost } from './scrypt.ts';
import { openThrottled } from './throttled-open.ts';

/** Whose a custodial secret is: one user's, on one chain and network. */
export interface SecretOwner {
  userId: string;
  chain: ChainName;
  network: Network;
}

/** The owner as the `addresses` and `wallets` rows store it: to insert, or to filter with `eb.and`. */
export function ownerColumns(owner: SecretOwner): { user_id: string; chain: ChainName; network: Network } {
  return { user_id: owner.userId, chain: owner.chain, network: owner.network };
}

/**
 * What the two custodial stores share (address-keys.ts, hd-wallets.ts): the database, the addresses quota
 * they both count against, the clock, and how a secret is sealed to its owner and opened again with its
 * password, through the throttle and at the sealing cost.
 */
export abstract class OwnedSecretStore {
  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly quotas: QuotaService,
    private readonly throttle: PasswordThrottle,
    protected readonly now: () => Date = () => new Date(),
    /** The sealing cost (KDF_COST's wallet-key cost). */
    private readonly sealCost: ScryptCost = FULL_KDF_COST.sealedKeys,
  ) {
    quotas.registerCounter('addresses', countHeldAddresses);
  }

  /** Seals `secret` so that it opens only with `password`, for this owner and `subject`. */
  protected seal(secret: Uint8Array, password: string, owner: SecretOwner, subject: string): Promise<string> {
    return sealKey(secret, password, sealBinding(owner, subject), { owner: owner.userId }, this.sealCost);
  }

  /** Opens what `seal` sealed, through the throttle; `sealedOf` reads it once the first check has passed. */
  protected open(
    owner: SecretOwner,
    subject: string,
    password: string,
    sealedOf: () => Promise<string>,
    holder?: PasswordTarget['holder'],
  ): Promise<Buffer> {
    const target: PasswordTarget = {
      userId: owner.userId,
      binding: sealBinding(owner, subject),
      ...(holder === undefined ? {} : { holder }),
    };
    return openThrottled(this.throttle, target, password, sealedOf);
  }
}

/** A sealed secret opens only for this user, chain, network and subject (an address, or a wallet's id). */
function sealBinding(owner: SecretOwner, subject: string): string {
  return `${owner.userId}|${owner.chain}|${owner.network}|${subject}`;
}

/** The addresses quota: every address row of the user, single-key or derived from an HD wallet. */
export async function countHeldAddresses(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('addresses')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
