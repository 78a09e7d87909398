import { BadRequestException, Injectable, PayloadTooLargeException, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { catchError, type Observable } from 'rxjs';
import { TranscribeConfig } from '../config';

export function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MB` : `${bytes} bytes`;
}

/**
 * Wraps the multer interceptor: its terse errors ("File too large", "Unexpected field") become
 * errors that say what to do next.
 */
@Injectable()
export class UploadErrorsInterceptor implements NestInterceptor {
  constructor(private readonly config: TranscribeConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((err: unknown) => {
        if (err instanceof PayloadTooLargeException && !(err instanceof ApiError)) {
          const limit = this.config.TRANSCRIBE_MAX_UPLOAD_BYTES;
          throw new ApiError(413, 'FILE_TOO_LARGE', `The file is larger than the upload limit of ${formatBytes(limit)} (${limit} bytes).`, {
            suggestion: 'Split the recording or compress it (for example to 64 kbit/s mono Opus or MP3) and upload again.',
          });
        }
        if (err instanceof BadRequestException && !(err instanceof ApiError) && /field|Multipart|boundary/i.test(err.message)) {
          throw new ApiError(400, 'BAD_UPLOAD', `The upload could not be read (${err.message}).`, {
            suggestion: 'Send multipart/form-data with exactly one file in the field named "file", plus optional "language" and "engine" fields.',
          });
        }
        throw err;
      }),
    );
  }
}
