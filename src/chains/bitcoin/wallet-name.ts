/**
 * Wallet names as Chaingateway makes them: a ULID (48-bit millisecond time, 80 random bits, Crockford
 * base32), so names sort by creation and never collide.
 */
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const WALLET_NAME_PATTERN = '^[0-9A-HJKMNP-TV-Z]{26}$';

export function newWalletName(now: Date = new Date()): string {
  let time = BigInt(now.getTime());
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[Number(time % 32n)] + head;
    time /= 32n;
  }
  let random = BigInt(`0x${randomBytes(10).toString('hex')}`);
  let tail = '';
  for (let i = 0; i < 16; i++) {
    tail = CROCKFORD[Number(random % 32n)] + tail;
    random /= 32n;
  }
  return head + tail;
}
