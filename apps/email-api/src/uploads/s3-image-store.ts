import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { IMAGE_CACHE_CONTROL, ImageStoreError, type ImageObject, type ImageStore, type StoredImage } from './image-store';

export interface S3ImageStoreOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server (MinIO, Ceph, R2, s3rver); unset: AWS S3 of the region. */
  endpoint?: string;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>` (most S3-compatible servers). */
  forcePathStyle: boolean;
  /** Both or neither; neither: the SDK's default chain (environment, IAM role, web identity). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Public origin of the bucket (a CDN or the bucket's website); unset: email-api serves the images. */
  publicUrl?: string;
  /** Time limit of one call to the bucket. */
  timeoutMs?: number;
}

/**
 * Images in an S3 bucket (or an S3-compatible one) through the official AWS SDK v3 client: object
 * `<project>/<key>`, written with its Content-Type and `Cache-Control: public, max-age=31536000,
 * immutable`, so a bucket served publicly (S3_PUBLIC_URL) answers with the same headers as
 * email-api's own image route. Checksums are sent and checked only where S3 requires them
 * (`WHEN_REQUIRED`): several S3-compatible servers refuse the SDK's default CRC32 trailers.
 */
export class S3ImageStore implements ImageStore {
  readonly kind = 's3';
  private readonly client: S3Client;

  constructor(private readonly options: S3ImageStoreOptions) {
    const timeout = options.timeoutMs ?? 30_000;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: { connectionTimeout: timeout, requestTimeout: timeout },
    });
  }

  async put(object: ImageObject): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.options.bucket,
          Key: `${object.project}/${object.key}`,
          Body: object.data,
          ContentLength: object.data.length,
          ContentType: object.contentType,
          CacheControl: IMAGE_CACHE_CONTROL,
        }),
      );
    } catch (err) {
      throw new ImageStoreError(`PutObject s3://${this.options.bucket}/${object.project}/${object.key} failed: ${describe(err)}`);
    }
  }

  async open(project: string, key: string): Promise<StoredImage | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: `${project}/${key}` }));
      if (!(res.Body instanceof Readable)) throw new ImageStoreError('GetObject returned no readable body');
      return { body: res.Body, size: res.ContentLength ?? 0 };
    } catch (err) {
      if (err instanceof NoSuchKey || (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) return null;
      if (err instanceof ImageStoreError) throw err;
      throw new ImageStoreError(`GetObject s3://${this.options.bucket}/${project}/${key} failed: ${describe(err)}`);
    }
  }

  directUrl(project: string, key: string): string | null {
    return this.options.publicUrl ? `${this.options.publicUrl.replace(/\/+$/, '')}/${project}/${key}` : null;
  }

  /** Nest calls it at shutdown: the client's sockets close. */
  onModuleDestroy(): void {
    this.client.destroy();
  }
}

function describe(err: unknown): string {
  if (err instanceof S3ServiceException) return `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'}): ${err.message}`;
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
