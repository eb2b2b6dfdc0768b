/**
 * The half of the sends that builds, signs and reads TON messages with @ton/core and @ton/ton, tens of
 * MiB of code and heap: `sends.ts` loads it on the first send, build or broadcast, so a gateway that
 * makes none never does.
 */
export { readSignedMessage } from './broadcast.ts';
export { feeQuery, signedTransfer, unsignedTransfer } from './build.ts';
export { jettonTransferMessage } from './jetton-transfer.ts';
export { tonTransferMessage } from './wallet-transfer.ts';
