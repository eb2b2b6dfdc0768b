import { Type } from '@sinclair/typebox';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './address-keys.ts';

/** The password that opens a stored key; `wrongAnswer` says what a wrong one answers. */
export function walletPassword(wrongAnswer = '401 `Wrong password provided`') {
  return Type.String({
    minLength: 1,
    maxLength: MAX_PASSWORD_LENGTH,
    description: `Password of the stored address; a wrong one answers ${wrongAnswer}`,
  });
}

/** The password that opens a stored key; a wrong one answers 401 `Wrong password provided`. */
export const WalletPassword = walletPassword();

/** A password that seals a key: creating, importing, or changing a password. */
export const NewWalletPassword = Type.String({
  minLength: MIN_PASSWORD_LENGTH,
  maxLength: MAX_PASSWORD_LENGTH,
  description: `${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters; seals the key with scrypt + AES-256-GCM and is never stored`,
});

/** A raw private key, accepted where the spec takes one and never stored. */
export const PrivateKey = Type.String({
  pattern: '^\\s*(0[xX])?[0-9a-fA-F]{64}\\s*$',
  description: 'Private key: 64 hex characters, 0x prefix optional; never stored',
});
