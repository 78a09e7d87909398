export type HttpSafetyErrorCode =
  | 'INVALID_URL'
  | 'BLOCKED_ADDRESS'
  | 'DNS_ERROR'
  | 'TOO_MANY_REDIRECTS'
  | 'RESPONSE_TOO_LARGE'
  | 'TIMEOUT'
  | 'NETWORK_ERROR';

/** Every refusal or failure of @platform/http-safety: a stable `code` and a message that names the URL's problem. */
export class HttpSafetyError extends Error {
  constructor(
    readonly code: HttpSafetyErrorCode,
    message: string,
    opts: { cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'HttpSafetyError';
  }
}

export function isHttpSafetyError(err: unknown, code?: HttpSafetyErrorCode): err is HttpSafetyError {
  return err instanceof HttpSafetyError && (code === undefined || err.code === code);
}
