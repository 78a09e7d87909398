import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConversationApiConfig } from '../config';

/** Largest media file kept (WhatsApp's own limit for documents is 100 MB; images and audio are far smaller). */
export const MAX_MEDIA_BYTES = 100 * 1024 * 1024;

const KEY = /^[0-9a-f]{64}$/;

/**
 * Where downloaded media lives: `${DATA_DIR}/conversation-api/media/<sha256>` (content-addressed, so
 * a file received twice is stored once). Keys are the SHA-256 of the content; only keys of this
 * shape are ever opened.
 */
@Injectable()
export class MediaStore {
  private readonly dir: string;

  constructor(config: ConversationApiConfig) {
    this.dir = path.join(config.DATA_DIR, 'conversation-api', 'media');
  }

  /** Stores the bytes; their key. */
  async put(bytes: Buffer): Promise<string> {
    const key = createHash('sha256').update(bytes).digest('hex');
    await mkdir(this.dir, { recursive: true });
    const target = path.join(this.dir, key);
    if (await stat(target).then(() => true, () => false)) return key;
    const partial = path.join(this.dir, `.${randomUUID()}`);
    try {
      await writeFile(partial, bytes);
      await rename(partial, target);
    } finally {
      await rm(partial, { force: true });
    }
    return key;
  }

  /** The stored file and its size; null for an unknown or malformed key. */
  async open(key: string): Promise<{ stream: ReadStream; size: number } | null> {
    if (!KEY.test(key)) return null;
    const file = path.join(this.dir, key);
    const info = await stat(file).catch(() => null);
    return info ? { stream: createReadStream(file), size: info.size } : null;
  }
}
