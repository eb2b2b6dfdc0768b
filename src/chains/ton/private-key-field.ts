import { Type } from '@sinclair/typebox';

/**
 * The private key a request may carry (`addresses/import`, a send's `privatekey`). Its own module, so the
 * send operations can use it without a circle through operations.ts, which lists them.
 */
export const TonPrivateKey = Type.String({
  minLength: 1,
  maxLength: 600,
  description:
    "Private key, never stored: the wallet's 24-word mnemonic (words separated by spaces), or the 32-byte ed25519 seed in hex or base64",
});
