import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { EmailApiConfig } from '../config';
import { decodeCursor, toPage, type CursorPage } from '../common/pagination';
import { contentTypeOfKey, MAX_IMAGE_BYTES, MAX_IMAGE_DIMENSION, MAX_INPUT_PIXELS, ImageRejected, processImage } from './image-processing';
import { IMAGE_STORE, ImageStoreError, type ImageStore, type StoredImage } from './image-store';
import { UploadsRepository, type UploadRow } from './uploads.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Upload {
  id: string;
  url: string;
  key: string;
  contentType: string;
  size: number;
  width: number;
  height: number;
  sha256: string;
  createdAt: Date;
}

/** A stored image ready to be served by the public route. */
export interface ServedImage extends StoredImage {
  contentType: string;
  /** Strong ETag: the SHA-256 of the bytes, quoted. */
  etag: string;
}

export const uploadNotFound = () =>
  new ApiError(404, 'UPLOAD_NOT_FOUND', 'Image not found', { suggestion: 'Use the `url` returned by POST /uploads/image unchanged.' });

const UPLOAD_SUGGESTION = `Send multipart/form-data with one PNG, JPEG, GIF or WebP image (at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB) in the field "file".`;

@Injectable()
export class UploadsService {
  private readonly logger = new Logger(UploadsService.name);

  constructor(
    private readonly config: EmailApiConfig,
    private readonly uploads: UploadsRepository,
    @Inject(IMAGE_STORE) private readonly store: ImageStore,
  ) {}

  /** Checks, cleans and stores one image for the project (see image-processing.ts); the same image twice answers the same upload. */
  async uploadImage(projectId: string, file: { buffer: Buffer } | undefined): Promise<Upload> {
    if (!file || file.buffer.length === 0) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: 'file', message: 'a non-empty image file is required in the multipart field "file"', code: 'required' }],
        suggestion: UPLOAD_SUGGESTION,
      });
    }
    const image = await processImage(file.buffer, { maxDimension: MAX_IMAGE_DIMENSION, maxInputPixels: MAX_INPUT_PIXELS }).catch((err: unknown) => {
      throw err instanceof ImageRejected ? rejection(err) : err;
    });
    try {
      await this.store.put({ project: projectId, key: image.key, data: image.data, contentType: image.contentType });
    } catch (err) {
      if (!(err instanceof ImageStoreError)) throw err;
      this.logger.error(`image upload of project ${projectId} not stored (${this.store.kind}): ${err.message}`);
      throw new ApiError(502, 'UPLOAD_STORAGE_FAILED', 'The image could not be stored', { suggestion: 'Try again in a moment; if it keeps failing, the operator should check the image storage (S3_* settings or DATA_DIR).' });
    }
    const row = await this.uploads.record(projectId, { key: image.key, contentType: image.contentType, size: image.data.length, width: image.width, height: image.height, sha256: image.sha256 });
    return this.toUpload(row);
  }

  /** The project's uploads, newest first, cursor-paginated. */
  async list(projectId: string, limit: number, cursor: string | undefined): Promise<CursorPage<Upload>> {
    const after = decodeCursor(cursor, UUID);
    const rows = await this.uploads.page(projectId, limit + 1, after);
    const total = after ? null : await this.uploads.count(projectId);
    return toPage(rows.map((r) => this.toUpload(r)), limit, total);
  }

  /** A project id and an image key, the only names the public route serves. */
  isImageKey(project: string, key: string): boolean {
    return contentTypeOfKey(key) !== null && UUID.test(project);
  }

  /**
   * The image for the public route; 404 for anything that is not a project id and an image key
   * (no path reaches the store otherwise) or that the store does not hold.
   */
  async open(project: string, key: string): Promise<ServedImage> {
    const contentType = contentTypeOfKey(key);
    if (!contentType || !this.isImageKey(project, key)) throw uploadNotFound();
    const stored = await this.store.open(project, key).catch((err: unknown) => {
      if (!(err instanceof ImageStoreError)) throw err;
      this.logger.error(`image ${project}/${key} not read (${this.store.kind}): ${err.message}`);
      throw new ApiError(502, 'UPLOAD_STORAGE_FAILED', 'The image could not be read from storage', { suggestion: 'Try again in a moment.' });
    });
    if (!stored) throw uploadNotFound();
    return { ...stored, contentType, etag: etagOf(key) };
  }

  /** The public URL of a stored image: the bucket's public origin when configured, else email-api's image route. */
  urlOf(project: string, key: string): string {
    return this.store.directUrl(project, key) ?? `${this.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/uploads/images/${project}/${key}`;
  }

  private toUpload(r: UploadRow): Upload {
    return { id: r.id, url: this.urlOf(r.project_id, r.key), key: r.key, contentType: r.content_type, size: r.size, width: r.width, height: r.height, sha256: r.sha256, createdAt: r.created_at };
  }
}

/** The ETag of a key (its content hash), for conditional requests before any storage is read. */
export function etagOf(key: string): string {
  return `"${key.slice(0, 64)}"`;
}

function rejection(err: ImageRejected): ApiError {
  switch (err.reason) {
    case 'unsupported_type':
      return new ApiError(415, 'UNSUPPORTED_IMAGE_TYPE', err.message, { suggestion: 'Upload a PNG, JPEG, GIF or WebP image; SVG and other formats are not accepted. Convert the file first.' });
    case 'too_many_pixels':
      return new ApiError(422, 'IMAGE_TOO_LARGE', err.message, { errors: [{ field: 'file', message: err.message, code: 'too_big' }], suggestion: 'Scale the image down (it is stored at most 2000 px wide and tall anyway) and upload it again.' });
    case 'corrupt':
      return new ApiError(422, 'INVALID_IMAGE', err.message, { errors: [{ field: 'file', message: err.message, code: 'invalid_image' }], suggestion: 'Open the file in an image editor, save it again, and upload that.' });
  }
}
