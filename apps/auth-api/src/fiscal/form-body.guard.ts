import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { Request } from 'express';

/**
 * Part B's login takes an `application/x-www-form-urlencoded` form, as the OAuth2 password flow it
 * follows does. Another body (JSON, multipart) is refused with 422 `{detail}`, as FastAPI refuses a
 * form endpoint's missing fields, instead of being accepted by the platform's JSON parser.
 */
@Injectable()
export class FormBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.is('application/x-www-form-urlencoded')) return true;
    throw new ApiError(
      422,
      'VALIDATION_ERROR',
      'username and password are required as form fields: send the body as application/x-www-form-urlencoded',
    );
  }
}
