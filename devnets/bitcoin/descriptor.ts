// Output descriptors' checksum (BIP-380), which Core appends to every descriptor it writes (addr(...)#xxxxxxxx).
const INPUT_CHARSET =
  '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATORS = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(c: bigint, value: number): bigint {
  const top = c >> 35n;
  let next = ((c & 0x7ffffffffn) << 5n) ^ BigInt(value);
  for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) next ^= GENERATORS[i] as bigint;
  return next;
}

export function descriptorChecksum(desc: string): string {
  let c = 1n;
  let cls = 0;
  let count = 0;
  for (const ch of desc) {
    const pos = INPUT_CHARSET.indexOf(ch);
    if (pos < 0) throw new Error(`invalid descriptor character ${ch}`);
    c = polymod(c, pos & 31);
    cls = cls * 3 + (pos >> 5);
    if (++count === 3) {
      c = polymod(c, cls);
      cls = 0;
      count = 0;
    }
  }
  if (count > 0) c = polymod(c, cls);
  for (let i = 0; i < 8; i++) c = polymod(c, 0);
  c ^= 1n;
  let out = '';
  for (let j = 0; j < 8; j++) out += CHECKSUM_CHARSET[Number((c >> BigInt(5 * (7 - j))) & 31n)];
  return out;
}

export const descriptorWithChecksum = (desc: string): string => `${desc}#${descriptorChecksum(desc)}`;
