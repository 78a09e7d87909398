import { Injectable, PayloadTooLargeException, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { catchError, type Observable } from 'rxjs';
import { MAX_UPLOAD_BYTES } from './extract-text';

/** Multer's own refusal of a file over the largest limit (50 MB), said the way the per-type limits are. */
@Injectable()
export class UploadLimitInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((err: unknown) => {
        if (err instanceof PayloadTooLargeException) {
          throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB, the largest upload accepted (.pdf); .docx and .doc may be at most 25 MB, .md and .txt 10 MB`);
        }
        throw err;
      }),
    );
  }
}
