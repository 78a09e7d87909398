import { BadRequestException, HttpException, Injectable, PayloadTooLargeException, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ApiError, RequestValidationException } from '@platform/errors';
import { catchError, type Observable } from 'rxjs';
import { TranscribeConfig } from '../config';

export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MB` : `${bytes} bytes`;
}

const MULTIPART_HINT = 'Send multipart/form-data with exactly one file in the field named "file" (curl -F file=@audio.mp3), plus optional "language", "engine" and "task" fields.';

/**
 * Wraps the multer interceptor: its terse errors ("File too large", "Too many files", a client that
 * hung up, a full disk) become errors that say what happened and what to do next, never a 500.
 */
@Injectable()
export class UploadErrorsInterceptor implements NestInterceptor {
  constructor(private readonly config: TranscribeConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((err: unknown) => {
        throw this.translate(err);
      }),
    );
  }

  private translate(err: unknown): unknown {
    if (err instanceof ApiError) return err;
    if (err instanceof PayloadTooLargeException) {
      const limit = this.config.TRANSCRIBE_MAX_UPLOAD_BYTES;
      return new ApiError(413, 'FILE_TOO_LARGE', `The file is larger than the upload limit of ${formatBytes(limit)} (${limit} bytes).`, {
        suggestion: 'Split the recording or compress it (for example to 64 kbit/s mono Opus or MP3) and upload again.',
      });
    }
    if (err instanceof RequestValidationException) {
      // `-F file=text` arrives as a text field named file, which the whitelist would call unknown.
      const fileAsText = err.errors.some((e) => e.field === 'file');
      return fileAsText
        ? new ApiError(400, 'FILE_REQUIRED', 'The "file" field holds text, not a file.', { suggestion: MULTIPART_HINT })
        : err;
    }
    // Every other BadRequestException here comes from multer or busboy (the handler throws ApiErrors).
    if (err instanceof BadRequestException) {
      return new ApiError(400, 'BAD_UPLOAD', `The upload could not be read (${err.message}).`, { suggestion: MULTIPART_HINT });
    }
    if (err instanceof HttpException || !(err instanceof Error)) return err;
    if (/^Request (aborted|closed)$/.test(err.message)) {
      // Nobody is left to read this answer; it keeps the log from calling a client's hang-up a server error.
      return new ApiError(400, 'UPLOAD_ABORTED', 'The client closed the connection before the upload ended; nothing was stored.', {
        suggestion: 'Upload the file again.',
      });
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOSPC') {
      return new ApiError(507, 'INSUFFICIENT_STORAGE', 'The server has no disk space left for the upload; nothing was stored.', {
        suggestion: 'Retry later, or ask the operator to free space under DATA_DIR.',
      });
    }
    return err;
  }
}
