import { Catch } from '@nestjs/common';
import { BaseErrorFilter } from './base-error.filter';
import type { NormalizedError } from './normalize';

/**
 * Part B (auth-api login API): `{detail: message}`. Validation failures answer 422 (as FastAPI-style
 * login APIs do) with a readable `detail` naming each field; a malformed body answers 400.
 */
@Catch()
export class DetailErrorFilter extends BaseErrorFilter {
  protected readonly validationStatus = 422;

  protected render(error: NormalizedError): { detail: string } {
    return { detail: error.message };
  }
}
