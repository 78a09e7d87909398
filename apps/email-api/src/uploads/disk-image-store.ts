import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ImageStoreError, type ImageObject, type ImageStore, type StoredImage } from './image-store';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR';

/**
 * Images as files: `<DATA_DIR>/email-api/uploads/<project>/<key>`. Written to a temporary file and
 * renamed into place, so a reader never sees half an image. Project and key are checked by the
 * caller (a UUID and `<sha256>.<ext>`), so a path never leaves the root.
 */
export class DiskImageStore implements ImageStore {
  readonly kind = 'disk';
  readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'email-api', 'uploads');
  }

  async put(object: ImageObject): Promise<void> {
    const dir = join(this.root, object.project);
    const path = join(dir, object.key);
    const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      if (await exists(path)) return;
      await mkdir(dir, { recursive: true });
      await writeFile(temp, object.data, { flag: 'wx' });
      await rename(temp, path);
    } catch (err) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new ImageStoreError(`cannot write ${path}: ${(err as Error).message}`);
    }
  }

  async open(project: string, key: string): Promise<StoredImage | null> {
    const path = join(this.root, project, key);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      return { body: handle.createReadStream({ autoClose: true }), size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  directUrl(): string | null {
    return null;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}
