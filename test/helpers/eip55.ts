/**
 * The address with the case of one letter flipped: the same account typed with a wrong EIP-55 checksum.
 * A flip that leaves the hex all in one case would carry no checksum at all, so such a letter is skipped.
 */
export function mistypedChecksum(address: string): string {
  for (let at = 2; at < address.length; at++) {
    const letter = address[at] ?? '';
    if (!/[a-fA-F]/.test(letter)) continue;
    const flipped = letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase();
    const typed = `${address.slice(0, at)}${flipped}${address.slice(at + 1)}`;
    const hex = typed.slice(2);
    if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase()) return typed;
  }
  throw new Error(`${address} has no letter whose flip keeps a mixed case`);
}
