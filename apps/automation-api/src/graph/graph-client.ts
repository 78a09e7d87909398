import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { AccountLimiter, BudgetExhaustedError, parseUsageHeaders, type RateBudget, type Release } from './call-budget';
import { AUTH_CODES, GraphApiError, THROTTLE_CODES } from './graph-api.error';

/** Typed client for the social platform's Graph API (graph.instagram.com), one per connected account. */

export interface GraphMedia {
  id: string;
  caption?: string;
  media_type?: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM' | string;
  media_product_type?: 'FEED' | 'REELS' | 'STORY' | 'AD' | string;
  media_url?: string;
  thumbnail_url?: string;
  permalink?: string;
  timestamp?: string;
  comments_count?: number;
  like_count?: number;
}

export interface GraphFrom {
  id: string;
  username?: string;
}

export interface GraphReply {
  id: string;
  text?: string;
  timestamp?: string;
  from?: GraphFrom;
}

export interface GraphComment extends GraphReply {
  username?: string;
  parent_id?: string;
  replies?: { data: GraphReply[] };
}

export interface GraphPage<T> {
  data: T[];
  /** Cursor for the next page, undefined on the last page. */
  after?: string;
}

export interface GraphUserProfile {
  id: string;
  username?: string;
  name?: string;
  is_user_follow_business?: boolean;
  is_business_follow_user?: boolean;
}

export interface GraphAccountInfo {
  id?: string;
  user_id?: string;
  username?: string;
  name?: string;
}

export type GraphButton = { type: 'web_url'; url: string; title: string } | { type: 'postback'; title: string; payload: string };

export type GraphMessage =
  | { text: string }
  | { attachment: { type: 'template'; payload: { template_type: 'button'; text: string; buttons: GraphButton[] } } };

export type GraphRecipient = { id: string } | { comment_id: string };

export interface SendResult {
  recipient_id?: string;
  message_id: string;
}

/** One message of a conversation (Conversations API): `message` is its text (empty for attachments). */
export interface GraphConversationMessage {
  id: string;
  created_time?: string;
  from?: { id: string; username?: string };
  to?: { data?: Array<{ id: string; username?: string }> };
  message?: string;
}

export interface TokenRefreshResult {
  access_token: string;
  token_type: string;
  expires_in: number;
}

/** `GET /debug_token?input_token=…` (the Graph API's token inspection): unix seconds, 0 = never. */
export interface TokenDebugResult {
  data: { is_valid?: boolean; expires_at?: number; issued_at?: number; user_id?: string; scopes?: string[]; type?: string };
}

/** A media container of the content-publishing flow; `uri` is the resumable upload address. */
export interface GraphContainer {
  id: string;
  uri?: string;
}

export interface GraphContainerStatus {
  id: string;
  /** IN_PROGRESS, FINISHED, ERROR, EXPIRED or PUBLISHED. */
  status_code?: string;
  /** Human-readable status; with ERROR the platform's reason. */
  status?: string;
}

export interface ReelContainerInput {
  caption: string;
  /** The platform fetches the video from this URL; without it the container expects a resumable upload. */
  video_url?: string;
  share_to_feed?: boolean | null;
  /** Trial reel (shown to non-followers first): graduation strategy MANUAL. */
  trial?: boolean;
}

export interface GraphClientConfig {
  /** Base URL with version, e.g. https://graph.instagram.com/v23.0 */
  baseUrl: string;
  accessToken: string;
  /** Professional account id; `me` when unknown. */
  igUserId?: string | null;
  timeoutMs: number;
  /** Pause when the platform throttles without saying for how long; default 60 s. */
  throttlePauseMs?: number;
}

export interface GraphCallOptions {
  /**
   * Longest time to wait for a throttled account before failing with 502. Request handlers use a
   * short wait; the engine passes Infinity so that work is queued, never dropped.
   */
  maxWaitMs?: number;
  /** Retry a call the platform throttled, after the pause it asked for (engine calls). */
  retryThrottled?: number;
}

export const MEDIA_FIELDS = 'id,caption,media_type,media_product_type,media_url,thumbnail_url,permalink,timestamp,comments_count,like_count';
export const COMMENT_FIELDS = 'id,text,timestamp,from,username,parent_id,replies{id,text,timestamp,from}';
export const REQUIRED_SUBSCRIBED_FIELDS = ['comments', 'messages', 'messaging_postbacks'];

/** Default pause when the platform throttles without saying for how long. */
const DEFAULT_THROTTLE_PAUSE_MS = 60_000;

export class GraphClient {
  constructor(
    private readonly config: GraphClientConfig,
    private readonly limiter: AccountLimiter,
    private readonly privateReplies: RateBudget,
    private readonly dispatcher?: Dispatcher,
    private readonly defaults: GraphCallOptions = {},
  ) {}

  private get account(): string {
    return this.config.igUserId || 'me';
  }

  /** The connected account (`user_id` equals the webhook `entry.id`). */
  getAccount(opts?: GraphCallOptions): Promise<GraphAccountInfo> {
    return this.call('GET', `/${this.account}`, { fields: 'user_id,username,name' }, undefined, opts);
  }

  async listMedia(params: { limit?: number; after?: string } = {}, opts?: GraphCallOptions): Promise<GraphPage<GraphMedia>> {
    const res = await this.call<{ data: GraphMedia[]; paging?: { cursors?: { after?: string }; next?: string } }>(
      'GET',
      `/${this.account}/media`,
      { fields: MEDIA_FIELDS, limit: String(params.limit ?? 25), ...(params.after ? { after: params.after } : {}) },
      undefined,
      opts,
    );
    return { data: res.data ?? [], after: res.paging?.next ? res.paging.cursors?.after : undefined };
  }

  /** The newest `limit` posts, following cursors when the platform returns short pages. */
  async listRecentMedia(limit: number, opts?: GraphCallOptions): Promise<GraphMedia[]> {
    const out: GraphMedia[] = [];
    let after: string | undefined;
    do {
      const page = await this.listMedia({ limit: Math.min(limit - out.length, 50), after }, opts);
      out.push(...page.data);
      after = page.after;
    } while (after && out.length < limit);
    return out.slice(0, limit);
  }

  getMedia(mediaId: string, opts?: GraphCallOptions): Promise<GraphMedia> {
    return this.call('GET', `/${encodeURIComponent(mediaId)}`, { fields: MEDIA_FIELDS }, undefined, opts);
  }

  async listComments(mediaId: string, params: { limit?: number; after?: string } = {}, opts?: GraphCallOptions): Promise<GraphPage<GraphComment>> {
    const res = await this.call<{ data: GraphComment[]; paging?: { cursors?: { after?: string }; next?: string } }>(
      'GET',
      `/${encodeURIComponent(mediaId)}/comments`,
      { fields: COMMENT_FIELDS, limit: String(params.limit ?? 50), ...(params.after ? { after: params.after } : {}) },
      undefined,
      opts,
    );
    return { data: res.data ?? [], after: res.paging?.next ? res.paging.cursors?.after : undefined };
  }

  /** One comment with its replies (`replies{from}`): did the account already answer it? */
  getComment(commentId: string, opts?: GraphCallOptions): Promise<GraphComment> {
    return this.call('GET', `/${encodeURIComponent(commentId)}`, { fields: COMMENT_FIELDS }, undefined, opts);
  }

  /** Profile and follow status; needs the person's consent (they messaged or tapped a postback). */
  getUserProfile(igsid: string, opts?: GraphCallOptions): Promise<GraphUserProfile> {
    return this.call(
      'GET',
      `/${encodeURIComponent(igsid)}`,
      { fields: 'username,name,is_user_follow_business,is_business_follow_user' },
      undefined,
      opts,
    );
  }

  sendMessage(recipient: GraphRecipient, message: GraphMessage, opts?: GraphCallOptions): Promise<SendResult> {
    return this.call('POST', `/${this.account}/messages`, {}, { recipient, message }, opts);
  }

  sendText(recipientId: string, text: string, opts?: GraphCallOptions): Promise<SendResult> {
    return this.sendMessage({ id: recipientId }, { text }, opts);
  }

  sendButtons(recipient: GraphRecipient, text: string, buttons: GraphButton[], opts?: GraphCallOptions): Promise<SendResult> {
    return this.sendMessage(recipient, buttonTemplate(text, buttons), opts);
  }

  /**
   * Private reply to a comment (`recipient.comment_id`), paced by the 750-per-hour budget: the call
   * waits for a slot. A slot is given back when the reply surely did not go out (a refusal, a
   * connection never made); after a timeout, a connection cut mid-request or a 5xx the send is
   * uncertain (GraphApiError.mayHaveArrived) and the slot stays used. With
   * `waitForBudget: false` a used-up budget throws `BudgetExhaustedError` at once (the engine defers).
   */
  async sendPrivateReply(commentId: string, message: GraphMessage, opts?: GraphCallOptions & { waitForBudget?: boolean }): Promise<SendResult> {
    let release: Release;
    if (opts?.waitForBudget === false) {
      const taken = await this.privateReplies.take();
      if (!taken) throw new BudgetExhaustedError(Math.max(1, this.privateReplies.waitMs()));
      release = taken;
    } else {
      release = await this.privateReplies.acquire();
    }
    try {
      return await this.sendMessage({ comment_id: commentId }, message, opts);
    } catch (err) {
      if (err instanceof GraphApiError && !err.mayHaveArrived) await release();
      throw err;
    }
  }

  /**
   * The latest messages (the platform returns the 20 most recent) of the account's conversation with
   * one person, both directions: `GET /{ig-user-id}/conversations?platform=instagram&user_id=<IGSID>`
   * with the `messages` edge's fields. Empty when there is no conversation yet.
   */
  async conversationMessages(igsid: string, opts?: GraphCallOptions): Promise<GraphConversationMessage[]> {
    const res = await this.call<{ data?: Array<{ id: string; messages?: { data?: GraphConversationMessage[] } }> }>(
      'GET',
      `/${this.account}/conversations`,
      { platform: 'instagram', user_id: igsid, fields: 'messages{id,created_time,from,to,message}' },
      undefined,
      opts,
    );
    return (res.data ?? []).flatMap((c) => c.messages?.data ?? []);
  }

  /** Public reply under a top-level comment. */
  replyToComment(commentId: string, message: string, opts?: GraphCallOptions): Promise<{ id: string }> {
    return this.call('POST', `/${encodeURIComponent(commentId)}/replies`, {}, { message }, opts);
  }

  async getSubscribedFields(opts?: GraphCallOptions): Promise<string[]> {
    const res = await this.call<{ data?: Array<{ subscribed_fields?: string[] }> }>('GET', `/${this.account}/subscribed_apps`, {}, undefined, opts);
    return [...new Set((res.data ?? []).flatMap((d) => d.subscribed_fields ?? []))];
  }

  subscribe(fields: string[] = REQUIRED_SUBSCRIBED_FIELDS, opts?: GraphCallOptions): Promise<{ success: boolean }> {
    return this.call('POST', `/${this.account}/subscribed_apps`, { subscribed_fields: fields.join(',') }, undefined, opts);
  }

  // ── Content publishing: container → status → publish ──────────────────────────────────────────

  /** Creates a REELS container from `video_url`, or for a resumable upload (`uri` in the answer). */
  createReelContainer(input: ReelContainerInput, opts?: GraphCallOptions): Promise<GraphContainer> {
    const query: Record<string, string> = { media_type: 'REELS', caption: input.caption };
    if (input.video_url) query.video_url = input.video_url;
    else query.upload_type = 'resumable';
    if (input.share_to_feed !== undefined && input.share_to_feed !== null) query.share_to_feed = String(input.share_to_feed);
    if (input.trial) query.trial_params = JSON.stringify({ graduation_strategy: 'MANUAL' });
    return this.call('POST', `/${this.account}/media`, query, undefined, opts);
  }

  /**
   * Sends the video bytes of a resumable container to its upload address (the rupload host):
   * `Authorization: OAuth <token>`, `offset`, `file_size`.
   */
  async uploadContainerVideo(uri: string, video: Readable, size: number): Promise<void> {
    await this.limiter.run(async () => {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(uri, {
          method: 'POST',
          dispatcher: this.dispatcher,
          headers: { authorization: `OAuth ${this.config.accessToken}`, offset: '0', file_size: String(size), 'content-type': 'application/octet-stream' },
          body: video,
          headersTimeout: Math.max(this.config.timeoutMs, 60_000),
          bodyTimeout: Math.max(this.config.timeoutMs, 60_000),
        });
      } catch (err) {
        throw new GraphApiError('network', `video upload failed (${(err as { code?: string }).code ?? (err as Error).message})`);
      }
      const text = await res.body.text();
      if (res.statusCode < 200 || res.statusCode >= 300) {
        let message = `HTTP ${res.statusCode}`;
        try {
          const parsed = JSON.parse(text) as { debug_info?: { message?: string }; error?: { message?: string } };
          message = parsed.debug_info?.message ?? parsed.error?.message ?? message;
        } catch {
          /* not JSON: the status says it */
        }
        throw new GraphApiError('platform', `video upload refused: ${message}`, { status: res.statusCode });
      }
    });
  }

  getContainerStatus(containerId: string, opts?: GraphCallOptions): Promise<GraphContainerStatus> {
    return this.call('GET', `/${encodeURIComponent(containerId)}`, { fields: 'id,status_code,status' }, undefined, opts);
  }

  /** Publishes a FINISHED container; answers the new media id. */
  publishContainer(containerId: string, opts?: GraphCallOptions): Promise<{ id: string }> {
    return this.call('POST', `/${this.account}/media_publish`, { creation_id: containerId }, undefined, opts);
  }

  /** Long-lived token refresh (token at least 24 h old, not expired); served at the host root. */
  refreshToken(opts?: GraphCallOptions): Promise<TokenRefreshResult> {
    return this.call('GET', '/refresh_access_token', { grant_type: 'ig_refresh_token' }, undefined, { ...opts, root: true });
  }

  /** The token's own expiry and issue time, read without changing it (the token inspects itself). */
  debugToken(opts?: GraphCallOptions): Promise<TokenDebugResult> {
    return this.call('GET', '/debug_token', { input_token: this.config.accessToken }, undefined, opts);
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string>,
    body: unknown,
    callOpts: (GraphCallOptions & { root?: boolean }) | undefined,
  ): Promise<T> {
    const opts = { ...this.defaults, ...callOpts };
    let attempts = 0;
    for (;;) {
      const wait = this.limiter.expectedWaitMs();
      if (wait > (opts.maxWaitMs ?? Infinity)) {
        throw new GraphApiError('throttled', `rate limited by the platform, retry in ${Math.ceil(wait / 1000)} s`, { retryAfterMs: wait });
      }
      try {
        return await this.limiter.run(() => this.send<T>(method, path, query, body, opts.root === true));
      } catch (err) {
        if (err instanceof GraphApiError && err.kind === 'throttled' && attempts < (opts.retryThrottled ?? 0)) {
          attempts += 1;
          continue;
        }
        throw err;
      }
    }
  }

  private url(path: string, query: Record<string, string>, root: boolean): string {
    const base = new URL(this.config.baseUrl);
    const url = root ? new URL(path, base.origin) : new URL(`${base.pathname.replace(/\/$/, '')}${path}`, base.origin);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    if (root) url.searchParams.set('access_token', this.config.accessToken);
    return url.toString();
  }

  private async send<T>(method: string, path: string, query: Record<string, string>, body: unknown, root: boolean): Promise<T> {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(this.url(path, query, root), {
        method: method as Dispatcher.HttpMethod,
        dispatcher: this.dispatcher,
        headers: {
          authorization: `Bearer ${this.config.accessToken}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.config.timeoutMs,
        bodyTimeout: this.config.timeoutMs,
      });
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code.includes('TIMEOUT')) throw new GraphApiError('timeout', `no answer within ${this.config.timeoutMs} ms`, { netCode: code });
      throw new GraphApiError('network', `cannot reach the platform (${code || (err as Error).message})`, { netCode: code });
    }
    const usage = parseUsageHeaders(res.headers);
    if (usage) {
      this.limiter.lastUsage = usage;
      if (usage.regainMinutes > 0) this.limiter.pause(usage.regainMinutes * 60_000);
      else if (usage.percent >= 100) this.limiter.pause(this.config.throttlePauseMs ?? DEFAULT_THROTTLE_PAUSE_MS);
    }
    let payload: any;
    try {
      payload = await res.body.json();
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code.includes('TIMEOUT')) throw new GraphApiError('timeout', `no answer within ${this.config.timeoutMs} ms`, { netCode: code });
      if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') throw new GraphApiError('network', `the connection closed during the answer (${code})`, { netCode: code });
      throw new GraphApiError('platform', `answered HTTP ${res.statusCode} without JSON`, { status: res.statusCode });
    }
    if (res.statusCode >= 200 && res.statusCode < 300 && !payload?.error) return payload as T;
    const e = payload?.error ?? {};
    const code = typeof e.code === 'number' ? e.code : undefined;
    const message = typeof e.message === 'string' ? e.message : `HTTP ${res.statusCode}`;
    const details = { status: res.statusCode, code, subcode: e.error_subcode, type: e.type };
    if (code !== undefined && THROTTLE_CODES.has(code)) {
      const pauseMs = usage?.regainMinutes ? usage.regainMinutes * 60_000 : (this.config.throttlePauseMs ?? DEFAULT_THROTTLE_PAUSE_MS);
      this.limiter.pause(pauseMs);
      throw new GraphApiError('throttled', `${message} (code ${code})`, { ...details, retryAfterMs: pauseMs });
    }
    if (code !== undefined && AUTH_CODES.has(code)) throw new GraphApiError('auth', `${message} (code ${code})`, details);
    throw new GraphApiError('platform', code === undefined ? message : `${message} (code ${code})`, details);
  }
}

export function buttonTemplate(text: string, buttons: GraphButton[]): GraphMessage {
  return { attachment: { type: 'template', payload: { template_type: 'button', text, buttons } } };
}
