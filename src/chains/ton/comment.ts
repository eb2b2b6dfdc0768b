/**
 * A send's text comment: how TON payments are told apart (an exchange's deposit memo, an order number).
 * On chain it is a message body of 32 zero bits (op 0) and the UTF-8 text, continued in a chain of
 * references when longer than one cell (a snake), which every wallet and explorer reads
 * (`wallet-transfer.ts` writes it). This is the request's side: the checks, without the chain library.
 */
import { invalidField } from '../../errors.ts';

/**
 * The longest comment accepted, in UTF-8 bytes. One cell holds 123 bytes after the op; longer ones take
 * more cells, each paid for in forward fees, so the bound keeps a send's cost predictable.
 */
export const MAX_COMMENT_BYTES = 500;

/** Control characters other than tab and line breaks: invisible in wallets, and refused by Postgres (NUL). */
function hasControlCharacter(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if ((code < 0x20 && char !== '\t' && char !== '\n' && char !== '\r') || code === 0x7f) return true;
  }
  return false;
}

/** The request's comment, checked: null when absent or empty; a 422 on `comment` when it cannot be sent. */
export function commentField(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (hasControlCharacter(value)) {
    throw invalidField('comment', 'The comment field must not hold control characters.');
  }
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_COMMENT_BYTES) {
    throw invalidField(
      'comment',
      `The comment field is ${bytes} bytes of UTF-8; at most ${MAX_COMMENT_BYTES} are sent.`,
    );
  }
  return value;
}
