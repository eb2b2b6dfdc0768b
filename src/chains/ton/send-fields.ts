/** The schema of a send's private key field. */
import { Type } from '@sinclair/typebox';

export const TonPrivateKey = Type.String({
  minLength: 1,
  maxLength: 400,
  description:
    'Private key, never stored: the 24-word mnemonic, or the 32-byte ed25519 seed in hex or base64',
});
