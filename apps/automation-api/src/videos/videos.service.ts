import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AutomationConfig } from '../config';
import { VIDEO_CONTENT_TYPES, type VideoDto } from './dto/video.dto';
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
