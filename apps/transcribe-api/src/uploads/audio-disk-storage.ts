import { ApiError } from '@platform/errors';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { SNIFF_BYTES, SUPPORTED_CONTAINERS, sniffMedia, type SniffedMedia } from '../media/sniff-media';

/** What multer puts on `req.file` with this storage. */
export interface StoredAudioFile {
  fieldname: string;
  originalname: string;
  path: string;
  size: number;
  /** the container found in the bytes, not the client's Content-Type */
  media: SniffedMedia;
  /** the file's first HEAD_BYTES (all of it when smaller), kept so that its header is read without opening the file again */
  head: Buffer;
}

/** How much of the start of each upload is kept in memory with it (what the duration reader looks at). */
export const HEAD_BYTES = 64 * 1024;

interface IncomingFile {
  fieldname: string;
  originalname: string;
  stream: Readable;
}

type Callback = (error?: unknown, info?: Partial<StoredAudioFile>) => void;

export const unsupportedMediaType = (): ApiError =>
  new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `The uploaded file is not a supported audio or video container (accepted: ${SUPPORTED_CONTAINERS}); the type is checked from the file's content, not its name.`, {
    suggestion: `Upload an audio or video file (${SUPPORTED_CONTAINERS}).`,
  });

export const emptyFile = (): ApiError =>
  new ApiError(400, 'EMPTY_FILE', 'The uploaded file is empty (0 bytes).', {
    suggestion: 'Check that the recording was saved completely, then upload it again.',
  });

/**
 * A multer storage engine that streams the `file` part straight to `${dir}/<uuid>.upload` and
 * checks its first bytes against the audio/video magic numbers before writing anything: a file
 * that is not audio is refused with 415 and never touches the disk. Memory use stays at one chunk
 * whatever the size; multer's `limits.fileSize` stops the stream at the limit (413).
 */
export class AudioDiskStorage {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  _handleFile(_req: Request, file: IncomingFile, cb: Callback): void {
    const stream = file.stream;
    const chunks: Buffer[] = [];
    let buffered = 0;
    let decided = false;

    const decide = (ended: boolean): void => {
      if (decided) return;
      decided = true;
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.pause();
      const head = Buffer.concat(chunks);
      if (head.length === 0) {
        stream.resume();
        cb(emptyFile());
        return;
      }
      const media = sniffMedia(head);
      if (!media) {
        stream.resume(); // let the parser move on; multer drains and answers with the error
        cb(unsupportedMediaType());
        return;
      }
      const path = join(this.dir, `${randomUUID()}.upload`);
      const out = createWriteStream(path);
      let failed = false;
      const fail = (err: unknown): void => {
        if (failed) return;
        failed = true;
        stream.unpipe(out);
        stream.resume();
        out.destroy();
        void unlink(path).catch(() => undefined);
        cb(err);
      };
      out.on('error', fail);
      stream.on('error', fail);
      // The start of the file stays in memory with it, up to HEAD_BYTES.
      const kept: Buffer[] = [head];
      let keptBytes = head.length;
      const keep = (chunk: Buffer): void => {
        kept.push(chunk);
        keptBytes += chunk.length;
        if (keptBytes >= HEAD_BYTES) stream.off('data', keep);
      };
      out.on('finish', () => {
        if (!failed) cb(null, { path, size: out.bytesWritten, media, head: Buffer.concat(kept).subarray(0, HEAD_BYTES) });
      });
      out.write(head);
      if (ended) {
        out.end();
        return;
      }
      if (keptBytes < HEAD_BYTES) stream.on('data', keep);
      stream.pipe(out);
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      buffered += chunk.length;
      if (buffered >= SNIFF_BYTES) decide(false);
    };
    const onEnd = (): void => decide(true);
    stream.on('data', onData);
    stream.on('end', onEnd);
  }

  _removeFile(_req: Request, file: Partial<StoredAudioFile>, cb: (error: Error | null) => void): void {
    if (!file.path) return cb(null);
    unlink(file.path).then(
      () => cb(null),
      (err: NodeJS.ErrnoException) => cb(err.code === 'ENOENT' ? null : err),
    );
  }
}
