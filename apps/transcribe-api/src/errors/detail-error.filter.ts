import { Catch } from '@nestjs/common';
import { DetailErrorFilter, type NormalizedError } from '@platform/errors';

/**
 * The origin service's FastAPI shape, `{detail}`, with the error's suggestion appended to the
 * detail: the shape has no other field for it, and every error should say what to do next.
 */
@Catch()
export class TranscribeDetailErrorFilter extends DetailErrorFilter {
  protected override render(error: NormalizedError): { detail: string } {
    if (!error.suggestion) return { detail: error.message };
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    return { detail: `${message} ${error.suggestion}` };
  }
}
