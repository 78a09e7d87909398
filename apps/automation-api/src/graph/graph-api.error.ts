import { ApiError } from '@platform/errors';

/** Error codes the platform uses for throttling (application, user, page, custom, account). */
export const THROTTLE_CODES = new Set([4, 17, 32, 613, 80002]);
/** Invalid or expired access token. */
export const AUTH_CODES = new Set([190]);

/** Network error codes of a connection that was never made: the request surely did not go out. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_INVALID_ARG', 'ERR_INVALID_URL']);

export type GraphErrorKind = 'throttled' | 'auth' | 'timeout' | 'network' | 'platform';

/**
 * A failed call to the social platform. Rendered as 502 `{error}` when it reaches the error filter
 * (every endpoint that needs the platform); the engine reads `kind`, `code` and `subcode` to decide
 * whether to retry (throttled, timeout, network) or give up (auth, platform).
 */
export class GraphApiError extends ApiError {
  constructor(
    readonly kind: GraphErrorKind,
    readonly detail: string,
    readonly graph: { status?: number; code?: number; subcode?: number; type?: string; retryAfterMs?: number; netCode?: string } = {},
  ) {
    super(502, 'PLATFORM_ERROR', `Social platform API error: ${detail}`, {
      suggestion:
        kind === 'auth'
          ? 'The access token of the connected account is invalid or expired: reconnect the account or refresh the token.'
          : 'Try again in a moment; GET /api/v1/status shows the connection state.',
    });
  }

  /** Whether sending the same request again later can succeed. */
  get retryable(): boolean {
    return this.kind === 'throttled' || this.kind === 'timeout' || this.kind === 'network' || (this.graph.status ?? 0) >= 500;
  }

  /**
   * Whether the request may have reached the platform and been performed although no answer came:
   * the answer timed out, the connection died after the request was written (a reset, "other side
   * closed"), or the platform answered 5xx (it sometimes performs a write and then reports an error).
   * A connection that was never made (refused, unresolvable host, connect timeout) sent nothing.
   * A write failing this way is uncertain: checked against the platform before it is sent again.
   */
  get mayHaveArrived(): boolean {
    if (this.kind === 'timeout') return this.graph.netCode !== 'UND_ERR_CONNECT_TIMEOUT';
    if (this.kind === 'network') return !NOT_SENT_CODES.has(this.graph.netCode ?? '');
    return this.kind === 'platform' && (this.graph.status ?? 0) >= 500;
  }

  /**
   * The platform refused the message's template (button template): "Invalid parameter" (code 100)
   * about the template or attachment. The same message may go out as plain text.
   */
  get templateRejected(): boolean {
    return this.kind === 'platform' && this.graph.code === 100 && /template|attachment/i.test(this.detail);
  }

  /** The object (post, comment, user) does not exist or is not visible to the account: code 100, subcode 33. */
  get objectMissing(): boolean {
    return this.kind === 'platform' && this.graph.code === 100 && this.graph.subcode === 33;
  }

  /** The platform refused a private reply because the comment already had one (or is too old). */
  get privateReplyRefused(): boolean {
    return this.graph.subcode === 2534025 || /invalid for a private reply|outside of allowed window/i.test(this.detail);
  }
}
