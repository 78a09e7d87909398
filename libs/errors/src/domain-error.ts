import type { FieldError } from './request-validation.exception';

export interface DomainErrorOptions {
  /** Machine code (envelope shape); default per status (`NOT_FOUND`, `CONFLICT`, ...). */
  code?: string;
  /** What the caller should do next; each filter has a default per status when omitted. */
  suggestion?: string;
  errors?: FieldError[];
}

/**
 * An error of an app's own domain that means something to the caller: code that knows nothing of
 * HTTP (a state machine, a simulator, a parser) throws it with the status it stands for, and every
 * filter answers it with that status and its message in the app's shape:
 * `throw new DomainError(404, 'no media 42')`, or a subclass carrying its own fields. A status
 * outside 400-599 is a bug: answered 500 like any other unexpected error.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}
