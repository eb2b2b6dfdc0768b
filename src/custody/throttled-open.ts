import type { KdfCaller } from './kdf-scheduler.ts';
import { openKey, WrongPasswordError } from './key-vault.ts';
import type { PasswordTarget, PasswordThrottle } from './password-throttle.ts';

/**
 * Every password check comes through here, and so through the throttle: a locked target answers 429
 * before anything is read or derived, the check runs again when the KDF scheduler gives the derivation
 * its turn (failures recorded while it waited count), a wrong password (`WrongPasswordError` from
 * `attempt`) is counted and a right one forgets the target's failures. `signal` is the client's: aborted,
 * a derivation still waiting is dropped.
 */
export async function throttledAttempt<T>(
  throttle: PasswordThrottle,
  target: PasswordTarget,
  attempt: (caller: KdfCaller) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  await throttle.assertAllowed(target);
  let result: T;
  try {
    // A target of no known user (a sign-in) is anonymous work: its derivation runs in the bounded share.
    result = await attempt({
      ...(target.userId === null ? { anonymous: true } : { owner: target.userId }),
      ...(signal === undefined ? {} : { signal }),
      admit: () => throttle.assertAllowed(target),
    });
  } catch (error) {
    if (error instanceof WrongPasswordError) await throttle.recordFailure(target);
    throw error;
  }
  await throttle.recordSuccess(target);
  return result;
}

/** Opens a sealed key with a password, throttled; `sealedOf` reads the sealed key once the first check has passed. */
export function openThrottled(
  throttle: PasswordThrottle,
  target: PasswordTarget,
  password: string,
  sealedOf: () => Promise<string>,
): Promise<Buffer> {
  return throttledAttempt(throttle, target, async (caller) =>
    openKey(await sealedOf(), password, target.binding, caller),
  );
}
