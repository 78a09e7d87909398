import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isHttpSafetyError, safeFetch } from '@platform/http-safety';
import { outboundPermission } from '../common/outbound-policy';
import { AutomationConfig } from '../config';
import { VIDEO_CONTENT_TYPES, type VideoChunkDto, type VideoDto } from './dto/video.dto';
import { VideosRepository, type VideoRow } from './videos.repository';

export type { VideoRow } from './videos.repository';

/** Bytes of a video to send somewhere: its size and a stream of any byte range. */
export interface VideoBytes {
  size: number;
  contentType: string;
  /** Bytes `start`…`end` inclusive (default: the whole file). */
  open(start?: number, end?: number): Readable;
}

const MB = 1_048_576;

export function toVideoDto(v: VideoRow): VideoDto {
  return {
    video_id: v.id,
    size_mb: Math.round((v.size_bytes / MB) * 100) / 100,
    file_status: v.file_status,
    content_type: v.content_type,
    created_at: v.created_at.toISOString(),
  };
}

/**
 * Video storage: request bodies are streamed to `DATA_DIR/automation-videos/<account>/<uuid>`
 * (never held in memory), with the size limit VIDEO_MAX_MB checked while streaming. Replicas need
 * DATA_DIR on a shared volume.
 */
@Injectable()
export class VideosService {
  constructor(
    private readonly videos: VideosRepository,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  private get root(): string {
    return resolve(this.config.DATA_DIR, 'automation-videos');
  }

  get maxBytes(): number {
    return this.config.VIDEO_MAX_MB * MB;
  }

  /** Stores a stream; `declaredLength` (Content-Length) over the limit is refused before reading. */
  async store(accountId: number, contentType: string | undefined, body: Readable, declaredLength?: number): Promise<VideoDto> {
    const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
    if (!(VIDEO_CONTENT_TYPES as readonly string[]).includes(type)) {
      throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be one of ${VIDEO_CONTENT_TYPES.join(', ')} (the video file as the request body)`);
    }
    const max = this.maxBytes;
    if (declaredLength !== undefined && declaredLength > max) throw tooLarge(this.config.VIDEO_MAX_MB);
    const id = randomUUID();
    const dir = join(this.root, String(accountId));
    await mkdir(dir, { recursive: true });
    const path = join(dir, id);
    let size = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > max) done(tooLarge(Math.round(max / MB)));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, createWriteStream(path, { flags: 'wx' }));
    } catch (err) {
      await rm(path, { force: true });
      if (err instanceof ApiError) throw err;
      throw new ApiError(400, 'BAD_REQUEST', `The upload was interrupted: ${(err as Error).message}`);
    }
    if (size === 0) {
      await rm(path, { force: true });
      throw new ApiError(400, 'VALIDATION_ERROR', 'The request body is empty: send the video file as the body');
    }
    const row = await this.videos.insert({ id, account_id: accountId, content_type: type, size_bytes: size, file_status: 'stored', path: join(String(accountId), id) });
    return toVideoDto(row);
  }

  /** The MCP tool's way in: the same storage from base64 text. */
  storeBase64(accountId: number, contentBase64: string, contentType = 'video/mp4'): Promise<VideoDto> {
    const bytes = Buffer.from(contentBase64, 'base64');
    return this.store(accountId, contentType, Readable.from([bytes]), bytes.length);
  }

  /**
   * The MCP tool's way in for a file on the web: `videoUrl` downloaded through http-safety (https and
   * public addresses unless AUTOMATION_VIDEO_URL_ALLOW_PRIVATE, at most VIDEO_MAX_MB, 3 redirects,
   * 10 minutes), then stored like an upload. The content type: `contentType`, else the answer's when
   * it is a video type, else application/octet-stream.
   */
  async storeFromUrl(accountId: number, videoUrl: string, contentType?: string): Promise<VideoDto> {
    const res = await safeFetch(videoUrl, { method: 'GET' }, { ...outboundPermission(this.config, 'video_download'), maxBytes: this.maxBytes, maxRedirects: 3, timeoutMs: 600_000 }).catch(
      (err: Error) => {
        if (isHttpSafetyError(err, 'RESPONSE_TOO_LARGE')) throw tooLarge(this.config.VIDEO_MAX_MB);
        throw new ApiError(400, 'VALIDATION_ERROR', `video_url cannot be downloaded: ${err.message}`);
      },
    );
    if (!res.ok) throw new ApiError(400, 'VALIDATION_ERROR', `video_url cannot be downloaded: HTTP ${res.status}`);
    const answered = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const type = contentType ?? ((VIDEO_CONTENT_TYPES as readonly string[]).includes(answered) ? answered : 'application/octet-stream');
    return this.store(accountId, type, Readable.from([res.body]), res.body.length);
  }

  private partialPath(accountId: number, uploadId: string): string {
    return join(this.root, String(accountId), 'partial', uploadId);
  }

  /**
   * One chunk of an upload in pieces (the MCP tool `upload_video_chunk`): the bytes are written at
   * `offset` of the partial file `DATA_DIR/automation-videos/<account>/partial/<upload_id>` (no
   * upload_id: a new upload, offset 0). A chunk sent again (a retry) rewrites the same bytes; a gap
   * is refused with the offset expected. The partial file is the whole state, so any replica sharing
   * DATA_DIR takes the next chunk; partial files untouched for a day are removed.
   */
  async appendChunk(accountId: number, uploadId: string | undefined, offset: number, bytes: Buffer): Promise<VideoChunkDto> {
    if (bytes.length === 0) throw new ApiError(400, 'VALIDATION_ERROR', 'chunk_base64 is empty');
    const id = uploadId ?? randomUUID();
    const path = this.partialPath(accountId, id);
    let size = 0;
    if (uploadId) {
      size = (await stat(path).catch(() => null))?.size ?? -1;
      if (size < 0) throw new ApiError(404, 'NOT_FOUND', `Upload ${uploadId} not found (finished, expired after a day, or never started): start again without upload_id`);
    } else {
      if (offset !== 0) throw new ApiError(400, 'VALIDATION_ERROR', 'offset must be 0 for the first chunk (no upload_id)');
      await mkdir(join(this.root, String(accountId), 'partial'), { recursive: true });
      await this.removeStalePartials(accountId);
    }
    if (offset > size) throw new ApiError(409, 'CONFLICT', `offset ${offset} leaves a gap: ${size} bytes received so far, send the chunk at offset ${size}`);
    if (offset + bytes.length > this.maxBytes) throw tooLarge(this.config.VIDEO_MAX_MB);
    const file = await open(path, uploadId ? 'r+' : 'wx');
    try {
      await file.write(bytes, 0, bytes.length, offset);
    } finally {
      await file.close();
    }
    return { upload_id: id, received_bytes: Math.max(size, offset + bytes.length) };
  }

  /** Ends an upload in pieces: the partial file becomes a stored video (as POST /videos answers). */
  async finishChunked(accountId: number, uploadId: string, contentType = 'video/mp4'): Promise<VideoDto> {
    const partial = this.partialPath(accountId, uploadId);
    const size = (await stat(partial).catch(() => null))?.size;
    if (size === undefined) throw new ApiError(404, 'NOT_FOUND', `Upload ${uploadId} not found (finished, expired after a day, or never started)`);
    const id = randomUUID();
    await rename(partial, join(this.root, String(accountId), id));
    const row = await this.videos.insert({ id, account_id: accountId, content_type: contentType, size_bytes: size, file_status: 'stored', path: join(String(accountId), id) });
    return toVideoDto(row);
  }

  private async removeStalePartials(accountId: number): Promise<void> {
    const dir = join(this.root, String(accountId), 'partial');
    const dayAgo = Date.now() - 86_400_000;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const s = await stat(join(dir, name)).catch(() => null);
      if (s && s.mtimeMs < dayAgo) await rm(join(dir, name), { force: true });
    }
  }

  find(accountId: number, id: string): Promise<VideoRow | null> {
    return this.videos.find(accountId, id);
  }

  findMany(accountId: number, ids: string[]): Promise<Map<string, VideoRow>> {
    return this.videos.findMany(accountId, ids);
  }

  /** The stored bytes of a video (for uploads to a platform). */
  bytes(v: VideoRow): VideoBytes {
    const path = join(this.root, v.path);
    return {
      size: v.size_bytes,
      contentType: v.content_type,
      open: (start = 0, end = v.size_bytes - 1) => createReadStream(path, { start, end }),
    };
  }

  markUploaded(id: string): Promise<void> {
    return this.videos.markUploaded(id);
  }
}

/** Bytes held in memory (a downloaded video_url) as VideoBytes. */
export function bufferBytes(buffer: Buffer, contentType: string): VideoBytes {
  return {
    size: buffer.length,
    contentType,
    open: (start = 0, end = buffer.length - 1) => Readable.from([buffer.subarray(start, end + 1)]),
  };
}

function tooLarge(maxMb: number): ApiError {
  return new ApiError(413, 'PAYLOAD_TOO_LARGE', `The video is larger than ${maxMb} MB (VIDEO_MAX_MB)`);
}
