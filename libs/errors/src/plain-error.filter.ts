import { Catch } from '@nestjs/common';
import { BaseErrorFilter } from './base-error.filter';
import type { NormalizedError } from './normalize';

/** Doc 1 (automation-api) and part A: `{error: message}`; validation failures answer 400. */
@Catch()
export class PlainErrorFilter extends BaseErrorFilter {
  protected readonly validationStatus = 400;

  protected render(error: NormalizedError): { error: string } {
    return { error: error.message };
  }
}
