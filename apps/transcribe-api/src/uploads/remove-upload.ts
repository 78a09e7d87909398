import { unlink } from 'node:fs/promises';

/** Removes a stored upload; one already gone is fine. */
export async function removeUpload(path: string): Promise<void> {
  await unlink(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
