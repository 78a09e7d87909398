import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { Request, Response } from 'express';
import multer from 'multer';
import type { Observable } from 'rxjs';
import { MAX_IMAGE_BYTES } from './image-processing';

/** Room for the multipart framing and a few small text fields around the file. */
export const MULTIPART_ALLOWANCE = 256 * 1024;

/** The part of an upload request the controller gets (as `@UploadedFile()`). */
export interface UploadedImageFile {
  buffer: Buffer;
  filename?: string;
}

export const imageTooLarge = () =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', `The image is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MB (${MAX_IMAGE_BYTES} bytes)`, {
    suggestion: `Scale the image down or compress it to at most ${MAX_IMAGE_BYTES / 1024 / 1024} MB, then upload it again (it is stored at most 2000 px wide and tall anyway).`,
    // The rest of the body is never read: the connection closes after the answer.
    headers: { Connection: 'close' },
  });

const badUpload = (message: string) => new ApiError(400, 'BAD_REQUEST', message, { suggestion: 'Send multipart/form-data with one image in the field "file" (at most 5 MB).' });

/**
 * Reads the one image of `POST /uploads/image` from its multipart body, counting bytes as they
 * stream:
 * - a declared `Content-Length` above the cap (plus the multipart framing) is refused with 413
 *   before one byte of the body is read;
 * - a file passing the cap is refused with 413 at that moment: at most the cap is ever held in
 *   memory, and the connection closes after the answer rather than reading the rest (multer alone
 *   would read, and discard, a body of any size before answering);
 * - a malformed body, a file in another field or a second file: 400. Text fields are ignored (at
 *   most 20 of 8 KB).
 * The file lands in `req.file`, for `@UploadedFile()`.
 */
@Injectable()
export class ImageUploadInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_IMAGE_BYTES + MULTIPART_ALLOWANCE) throw imageTooLarge();
    // where @UploadedFile() reads it
    Object.assign(req, { file: await readImagePart(req, http.getResponse<Response>(), MAX_IMAGE_BYTES) });
    return next.handle();
  }
}

/** The file of the field `file` (undefined when the body has none or is no multipart), refused past `maxBytes`. */
export function readImagePart(req: Request, res: Response, maxBytes: number): Promise<UploadedImageFile | undefined> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    let received: UploadedImageFile | undefined;
    const storage: multer.StorageEngine = {
      _handleFile(_req, file, cb) {
        const chunks: Buffer[] = [];
        let size = 0;
        let failed = false;
        file.stream.on('data', (chunk: Buffer) => {
          if (failed) return;
          size += chunk.length;
          if (size <= maxBytes) {
            chunks.push(chunk);
            return;
          }
          failed = true;
          chunks.length = 0;
          settle(() => reject(imageTooLarge()));
          cb(new multer.MulterError('LIMIT_FILE_SIZE', file.fieldname));
        });
        file.stream.on('error', (err) => {
          if (!failed) cb(err);
          failed = true;
        });
        file.stream.on('end', () => {
          if (failed) return;
          received = { buffer: Buffer.concat(chunks), filename: file.originalname };
          cb(null, { size });
        });
      },
      _removeFile(_req, _file, cb) {
        cb(null);
      },
    };
    const upload = multer({ storage, limits: { fileSize: maxBytes + 1, files: 1, fields: 20, fieldSize: 8 * 1024, parts: 21, headerPairs: 100 } }).single('file');
    upload(req, res, (err?: unknown) => settle(() => (err ? reject(uploadError(err)) : resolve(received))));
  });
}

function uploadError(err: unknown): ApiError {
  if (!(err instanceof multer.MulterError)) return badUpload(`The multipart body is malformed: ${err instanceof Error ? err.message : String(err)}`);
  switch (err.code) {
    case 'LIMIT_FILE_SIZE':
      return imageTooLarge();
    case 'LIMIT_UNEXPECTED_FILE':
      return badUpload(`Unexpected file field "${String(err.field ?? '').slice(0, 100)}": send one image in the field "file"`);
    case 'LIMIT_FILE_COUNT':
      return badUpload('Send one file only');
    default:
      return badUpload(`The multipart body breaks a limit: ${err.message} (at most 20 text fields of 8 KB)`);
  }
}
