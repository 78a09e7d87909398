import type { Readable } from 'node:stream';

/** One stored image, as read back for the public image route. */
export interface StoredImage {
  body: Readable;
  /** Bytes. */
  size: number;
}

/** What {@link ImageStore.put} writes. */
export interface ImageObject {
  project: string;
  /** `<sha256>.<extension>` (content-addressed: the same key always holds the same bytes). */
  key: string;
  data: Buffer;
  contentType: string;
}

/**
 * Where uploaded images live: {@link DiskImageStore} under `DATA_DIR` while `S3_BUCKET` is unset,
 * {@link S3ImageStore} in an S3-compatible bucket when it is set (chosen once, at start, by
 * `imageStoreProvider`). Objects are named `<project>/<key>` in both.
 */
export interface ImageStore {
  readonly kind: 'disk' | 's3';
  /** Stores the object (idempotent: the key is the content's hash). */
  put(object: ImageObject): Promise<void>;
  /** The object, null when the store has none under that name. */
  open(project: string, key: string): Promise<StoredImage | null>;
  /** The URL that serves the object directly (the bucket's public origin), null when email-api serves it. */
  directUrl(project: string, key: string): string | null;
}

export const IMAGE_STORE = Symbol('IMAGE_STORE');

/** Long-lived and immutable: a key names one content forever. */
export const IMAGE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The store failed (disk full, bucket unreachable, access denied): the upload answers 502. */
export class ImageStoreError extends Error {}
