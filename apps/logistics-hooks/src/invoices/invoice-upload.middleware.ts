import { Inject, Injectable, type NestMiddleware } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import { LogisticsHooksConfig } from '../config';

/**
 * Reads a multipart invoice upload (`file` and form fields such as `api_key`) before the guards run, so
 * the API key may travel as a form field like in the JSON bodies. At most one file of INVOICE_MAX_BYTES;
 * larger → 413 `FILE_TOO_LARGE`. JSON bodies pass through untouched.
 */
@Injectable()
export class InvoiceUploadMiddleware implements NestMiddleware {
  private readonly upload: ReturnType<multer.Multer['single']>;

  constructor(@Inject(LogisticsHooksConfig) private readonly config: LogisticsHooksConfig) {
    this.upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: config.INVOICE_MAX_BYTES, files: 1, fields: 10, fieldSize: 64 * 1024 } }).single('file');
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (!req.is('multipart/form-data')) return next();
    this.upload(req, res, (err?: unknown) => {
      if (!err) return next();
      if (err instanceof multer.MulterError && err.code === 'LIMIT_FILE_SIZE') {
        return next(new ApiError(413, 'FILE_TOO_LARGE', `The invoice is larger than ${this.config.INVOICE_MAX_BYTES} bytes`, { suggestion: 'Send the invoice alone, as a PDF under the limit.' }));
      }
      const message = err instanceof Error ? err.message : String(err);
      next(new ApiError(400, 'INVALID_UPLOAD', `The multipart body cannot be read: ${message}`, { suggestion: 'Send the PDF as the single file field `file` (multipart/form-data), or as file_base64 in JSON.' }));
    });
  }
}
