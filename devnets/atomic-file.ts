// Writes a devnet's saved chain so that a crash at any moment leaves either the old file or the new one,
// never half of one: the bytes go to a temporary file beside it, reach the disk, then replace it by rename.
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Replaces `file` with `data` atomically; the file and its folder are private (0600, 0700). */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.partial`;
  const handle = await open(partial, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
