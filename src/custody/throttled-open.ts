import { openKey, WrongPasswordError } from './key-vault.ts';
import type { PasswordTarget, PasswordThrottle } from './password-throttle.ts';

/**
 * Every path that opens a sealed key with a password comes through here, and so through the throttle: a
 * locked key answers 429 before its row is even read, the check runs again when the KDF scheduler gives
 * the derivation its turn (failures recorded while it waited count), a wrong password is counted and a
 * right one forgets the key's failures. `sealedOf` reads the sealed key once the first check has passed.
 */
export async function openThrottled(
  throttle: PasswordThrottle,
  target: PasswordTarget,
  password: string,
  sealedOf: () => Promise<string>,
): Promise<Buffer> {
  await throttle.assertAllowed(target);
  const sealed = await sealedOf();
  let secret: Buffer;
  try {
    secret = await openKey(sealed, password, target.binding, {
      owner: target.userId,
      admit: () => throttle.assertAllowed(target),
    });
  } catch (error) {
    if (error instanceof WrongPasswordError) await throttle.recordFailure(target);
    throw error;
  }
  await throttle.recordSuccess(target);
  return secret;
}
