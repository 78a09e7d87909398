import { Catch } from '@nestjs/common';
import { BaseErrorFilter } from './base-error.filter';
import { defaultCode, defaultSuggestion, type NormalizedError } from './normalize';
import { omittedNote, type FieldError } from './request-validation.exception';

export interface EnvelopeErrorBody {
  success: false;
  error: {
    code: string;
    message: string;
    statusCode: number;
    requestId: string;
    errors?: FieldError[];
    suggestion: string;
  };
  timestamp: string;
}

export interface EnvelopeErrorFilterOptions {
  /** Codes by status that replace the defaults, e.g. `{ 429: 'THROTTLER_LIMIT_EXCEEDED' }` (part C). */
  codes?: Record<number, string>;
  /** Suggestions by status that replace the defaults. */
  suggestions?: Record<number, string>;
}

/**
 * Doc 2 (email-api) and part C (conversation-api):
 * `{success:false, error:{code,message,statusCode,requestId,errors?,suggestion}, timestamp}`.
 * Validation failures answer 422 `VALIDATION_ERROR` with field-level `errors` (at most
 * MAX_FIELD_ERRORS; the message counts the rest).
 */
@Catch()
export class EnvelopeErrorFilter extends BaseErrorFilter {
  protected readonly validationStatus = 422;

  constructor(private readonly options: EnvelopeErrorFilterOptions = {}) {
    super();
  }

  protected override adjust(error: NormalizedError): NormalizedError {
    const override = this.options.codes?.[error.status];
    // Only generic codes are replaced: an ApiError's own code always wins.
    if (override && error.code === defaultCode(error.status)) return { ...error, code: override };
    return error;
  }

  protected render(error: NormalizedError, requestId: string): EnvelopeErrorBody {
    const message = error.validation ? 'Validation failed' : error.message;
    return {
      success: false,
      error: {
        code: error.code,
        // A capped list says how many problems it leaves out: "Validation failed (19950 more problems not listed)".
        message: error.omittedErrors ? `${message} (${omittedNote(error.omittedErrors)})` : message,
        statusCode: error.status,
        requestId,
        ...(error.errors?.length ? { errors: error.errors } : {}),
        suggestion: error.suggestion ?? this.options.suggestions?.[error.status] ?? defaultSuggestion(error.status),
      },
      timestamp: new Date().toISOString(),
    };
  }
}
