export { ApiError, type ApiErrorOptions } from './api-error';
export {
  RequestValidationException,
  validationExceptionFactory,
  flattenValidationErrors,
  validationCode,
  capFieldErrors,
  MAX_FIELD_ERRORS,
  type FieldError,
} from './request-validation.exception';
export { BaseErrorFilter } from './base-error.filter';
export { EnvelopeErrorFilter, type EnvelopeErrorBody, type EnvelopeErrorFilterOptions } from './envelope-error.filter';
export { PlainErrorFilter } from './plain-error.filter';
export { DetailErrorFilter } from './detail-error.filter';
export { normalizeException, defaultCode, defaultSuggestion, genericMessage, hideInternalDetails, type NormalizedError } from './normalize';
export { isDatabaseConnectionLoss, databaseUnavailable, asDatabaseUnavailable, DATABASE_RETRY_AFTER_SECONDS, DATABASE_LOSS_AS_503 } from './connection-loss';
