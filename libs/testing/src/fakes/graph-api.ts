import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the social platform's Graph API (graph.instagram.com) for tests: node:http on
 * 127.0.0.1, port 0, in-memory state. It answers the calls automation-api makes, in the real
 * shapes (see shared/research/automation-anchors.md), checks the access token like the real one
 * (error 190 otherwise), records every request, and can inject failures, timeouts and throttling.
 *
 * `url` ends in the version path (`http://127.0.0.1:<port>/v23.0`); `refresh_access_token` is
 * served at the root, as on the real host; `GET /debug_token?input_token=` reports the token's
 * `issued_at` / `expires_at` (`state.tokenIssuedAt` / `tokenExpiresAt`).
 */

export interface FakeGraphUser {
  id: string;
  username: string;
  name?: string;
  /** is_user_follow_business */
  follows?: boolean;
  /** false: profile reads answer "User consent is required" (the person never messaged or tapped). */
  consent?: boolean;
}

export interface FakeGraphReply {
  id: string;
  text: string;
  timestamp: string;
  from: { id: string; username: string };
}

export interface FakeGraphComment extends FakeGraphReply {
  media_id: string;
  parent_id?: string;
  replies: FakeGraphReply[];
  /** Set once a private reply was sent to it (only one per comment, ever). */
  private_replied?: boolean;
}

export interface FakeGraphMedia {
  id: string;
  caption?: string;
  media_type: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  media_product_type: 'FEED' | 'REELS' | 'STORY' | 'AD';
  media_url?: string;
  thumbnail_url?: string;
  permalink: string;
  timestamp: string;
  like_count?: number;
  comments_count?: number;
}

export interface FakeSentMessage {
  id: string;
  recipient: { id?: string; comment_id?: string };
  message: Record<string, unknown>;
  messaging_type?: string;
  tag?: string;
  at: string;
}

export interface RecordedGraphRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  at: number;
}

export interface GraphFailure {
  /** Matches the request path without the version prefix (string: exact or substring). */
  path?: string | RegExp;
  method?: string;
  /** How many requests fail; default 1. */
  times?: number;
  /** Matching requests let through (answered normally) before the failure applies; default 0. */
  after?: number;
  /**
   * `error` (default) answers a Graph error; `timeout` never answers; `reset` destroys the socket;
   * `delay` performs the request (its effects happen, e.g. the message is sent) but holds the answer
   * back for `delayMs` (forever when unset): a send in flight when the caller dies; `cut` performs the
   * request and then closes the connection without answering (the caller cannot tell whether it arrived).
   */
  mode?: 'error' | 'timeout' | 'reset' | 'delay' | 'cut';
  delayMs?: number;
  status?: number;
  code?: number;
  subcode?: number;
  message?: string;
  type?: string;
  headers?: Record<string, string>;
}

/** A media container of the content-publishing flow (`POST /{ig-user-id}/media`). */
export interface FakeGraphContainer {
  id: string;
  media_type: string;
  video_url?: string;
  upload_type?: string;
  caption?: string;
  share_to_feed?: boolean;
  trial_params?: unknown;
  /** Bytes received through the resumable upload (`POST /ig-api-upload/<version>/<id>`). */
  uploaded_bytes: number;
  /** Status polls answered so far. */
  polls: number;
  /** Polls answered IN_PROGRESS before the outcome. */
  polls_until_done: number;
  /** Set: the container ends in ERROR with this `status` text. */
  error?: string;
  status_code: 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
  media_id?: string;
}

export interface FakeGraphApiOptions {
  userId?: string;
  username?: string;
  accessToken?: string;
  /** Lifetime of the starting token from the fake's start (debug_token's expires_at); default 60 days. */
  tokenTtlSeconds?: number;
  /** The app of the login flow (Business Login): client_id and client_secret; defaults `fake-app-id`, `fake-app-secret`. */
  appId?: string;
  appSecret?: string;
  version?: string;
}

export interface FakeGraphState {
  account: { user_id: string; id: string; username: string; name: string; followers_count: number };
  accessToken: string;
  /**
   * Issue time and expiry of `accessToken`, unix seconds, as `GET /debug_token` reports them (0 = never
   * expires). Start: issued at the fake's start, valid 60 days (`tokenTtlSeconds`); a refresh renews both.
   */
  tokenIssuedAt: number;
  tokenExpiresAt: number;
  media: FakeGraphMedia[];
  comments: Map<string, FakeGraphComment>;
  users: Map<string, FakeGraphUser>;
  messages: FakeSentMessage[];
  subscribedFields: string[];
  /** Value sent in X-Business-Use-Case-Usage on every answer, when set. */
  usage?: Record<string, unknown>;
  /**
   * Refuse template messages (button templates) like the platform does for some recipients:
   * `all`, or only those to a `comment_id` (`private_reply`) or to an `id` (`dm`). Answered with
   * HTTP 400, code 100 (`TEMPLATE_REJECTED_MESSAGE`); nothing is sent and a private reply stays unused.
   */
  rejectTemplates?: false | 'all' | 'private_reply' | 'dm';
  /** Content publishing: containers by id. */
  containers: Map<string, FakeGraphContainer>;
  /**
   * How the next containers end, one entry per created container (then `{ polls: 1 }`): IN_PROGRESS
   * for `polls` status reads, then FINISHED, or ERROR with `error` as the status text.
   */
  containerPlan: Array<{ polls?: number; error?: string }>;
  /**
   * The login flow (Business Login), served on the same origin as the Graph API: `GET /oauth/authorize`
   * (no consent page: it answers 302 to `redirect_uri?code=…&state=…#_` at once; the fake-only query
   * `deny=1` answers `error=access_denied`), `POST /oauth/access_token` (form: client_id, client_secret,
   * grant_type=authorization_code, redirect_uri, code → `{data: [{access_token, user_id, permissions}]}`
   * with a short-lived token; a code works once, with its redirect_uri) and `GET /access_token`
   * (root; grant_type=ig_exchange_token, client_secret, access_token=<short-lived> → the long-lived
   * token, which becomes `accessToken`, 60 days).
   */
  oauth: { appId: string; appSecret: string; codes: Map<string, { redirect_uri: string; used: boolean }>; shortTokens: Set<string> };
}

/** Message of the code-100 error the fake answers to a refused template (`rejectTemplates`). */
export const TEMPLATE_REJECTED_MESSAGE = '(#100) Invalid parameter: message[attachment][payload] - the template is not supported for this recipient';

export interface FakeGraphApi {
  url: string;
  origin: string;
  state: FakeGraphState;
  requests: RecordedGraphRequest[];
  addMedia(media?: Partial<FakeGraphMedia>): FakeGraphMedia;
  addUser(user: Partial<FakeGraphUser> & { id: string }): FakeGraphUser;
  addComment(mediaId: string, comment: Partial<Omit<FakeGraphComment, 'replies'>> & { text: string; from?: { id: string; username: string } }): FakeGraphComment;
  /** A reply under a comment; `fromAccount` (default true) makes the business account its author. */
  addReply(commentId: string, text: string, opts?: { fromAccount?: boolean; from?: { id: string; username: string }; timestamp?: string }): FakeGraphReply;
  fail(failure: GraphFailure): void;
  clearFailures(): void;
  requestsTo(path: string | RegExp, method?: string): RecordedGraphRequest[];
  reset(): void;
  close(): Promise<void>;
}

const THROTTLE_MESSAGES: Record<number, string> = {
  4: 'Application request limit reached',
  17: 'User request limit reached',
  32: 'Page request limit reached',
  613: 'Calls to this api have exceeded the rate limit.',
  80002: 'There have been too many calls to this Instagram account.',
};

class GraphHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: number,
    readonly subcode?: number,
    readonly type = 'OAuthException',
  ) {
    super(message);
  }
}

function iso(d: Date): string {
  // Graph writes timestamps as 2024-01-01T10:00:00+0000
  return d.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

/** Shared by every fake in the process, so that two fakes (two accounts) never hand out the same id. */
let idSequence = 1000;

export async function startFakeGraphApi(options: FakeGraphApiOptions = {}): Promise<FakeGraphApi> {
  const version = options.version ?? 'v23.0';
  const userId = options.userId ?? '17841400000000001';
  const nextId = () => `179${String(++idSequence).padStart(14, '0')}`;

  const startedAt = Math.floor(Date.now() / 1000);
  const initialState = (): FakeGraphState => ({
    account: { user_id: userId, id: '27000000000000001', username: options.username ?? 'fake_business', name: 'Fake Business', followers_count: 1234 },
    accessToken: options.accessToken ?? 'fake-ig-token',
    tokenIssuedAt: startedAt,
    tokenExpiresAt: startedAt + (options.tokenTtlSeconds ?? 5_184_000),
    media: [],
    comments: new Map(),
    users: new Map(),
    messages: [],
    subscribedFields: [],
    rejectTemplates: false,
    containers: new Map(),
    containerPlan: [],
    oauth: { appId: options.appId ?? 'fake-app-id', appSecret: options.appSecret ?? 'fake-app-secret', codes: new Map(), shortTokens: new Set() },
  });

  const state = initialState();
  const requests: RecordedGraphRequest[] = [];
  let failures: Array<GraphFailure & { remaining: number; skip: number }> = [];
  const hanging = new Set<ServerResponse>();

  const fake: FakeGraphApi = {
    url: '',
    origin: '',
    state,
    requests,
    addMedia(media = {}) {
      const id = media.id ?? nextId();
      const type = media.media_type ?? 'IMAGE';
      const item: FakeGraphMedia = {
        id,
        caption: 'caption' in media ? media.caption : `Post ${id}`,
        media_type: type,
        media_product_type: media.media_product_type ?? (type === 'VIDEO' ? 'REELS' : 'FEED'),
        media_url: media.media_url ?? `https://cdn.example.com/${id}.${type === 'VIDEO' ? 'mp4' : 'jpg'}`,
        thumbnail_url: type === 'VIDEO' ? (media.thumbnail_url ?? `https://cdn.example.com/${id}_thumb.jpg`) : undefined,
        permalink: media.permalink ?? `https://www.instagram.com/p/${id}/`,
        timestamp: media.timestamp ?? iso(new Date()),
        like_count: media.like_count ?? 0,
        comments_count: media.comments_count,
      };
      state.media.unshift(item);
      state.media.sort((a, b) => Date.parse(norm(b.timestamp)) - Date.parse(norm(a.timestamp)));
      return item;
    },
    addUser(user) {
      const full: FakeGraphUser = { username: `user_${user.id}`, follows: false, consent: true, ...user };
      state.users.set(full.id, full);
      return full;
    },
    addComment(mediaId, comment) {
      const id = comment.id ?? nextId();
      const from = comment.from ?? { id: nextId(), username: 'commenter' };
      const item: FakeGraphComment = {
        id,
        text: comment.text,
        timestamp: comment.timestamp ?? iso(new Date()),
        from,
        media_id: mediaId,
        parent_id: comment.parent_id,
        replies: [],
      };
      state.comments.set(id, item);
      // A reply comment is also listed in its parent's `replies` (as the platform lists a thread).
      const parent = comment.parent_id ? state.comments.get(comment.parent_id) : undefined;
      if (parent) parent.replies.push({ id, text: item.text, timestamp: item.timestamp, from });
      if (!state.users.has(from.id)) fake.addUser({ id: from.id, username: from.username });
      return item;
    },
    addReply(commentId, text, opts = {}) {
      const parent = state.comments.get(commentId);
      if (!parent) throw new Error(`no comment ${commentId}`);
      const from =
        opts.from ?? (opts.fromAccount === false ? { id: nextId(), username: 'someone' } : { id: state.account.user_id, username: state.account.username });
      const reply: FakeGraphReply = { id: nextId(), text, timestamp: opts.timestamp ?? iso(new Date()), from };
      parent.replies.push(reply);
      return reply;
    },
    fail(failure) {
      failures.push({ ...failure, remaining: failure.times ?? 1, skip: failure.after ?? 0 });
    },
    clearFailures() {
      failures = [];
    },
    requestsTo(path, method) {
      return requests.filter((r) => matchesPath(r.path, path) && (!method || r.method === method.toUpperCase()));
    },
    reset() {
      Object.assign(state, initialState());
      requests.length = 0;
      failures = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  function norm(ts: string): string {
    return ts.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  }

  function matchesPath(path: string, pattern: string | RegExp): boolean {
    return typeof pattern === 'string' ? path === pattern || path.includes(pattern) : pattern.test(path);
  }

  function takeFailure(method: string, path: string): GraphFailure | undefined {
    const f = failures.find(
      (x) => x.remaining > 0 && (!x.method || x.method.toUpperCase() === method) && (!x.path || matchesPath(path, x.path)),
    );
    if (!f) return undefined;
    if (f.skip > 0) {
      f.skip -= 1;
      return undefined;
    }
    f.remaining -= 1;
    failures = failures.filter((x) => x.remaining > 0);
    return f;
  }

  function mediaFields(m: FakeGraphMedia, fields: string[]): Record<string, unknown> {
    const counted = { ...m, comments_count: m.comments_count ?? [...state.comments.values()].filter((c) => c.media_id === m.id).length };
    return pick(counted as unknown as Record<string, unknown>, fields.length ? fields : ['id']);
  }

  function pick(obj: Record<string, unknown>, fields: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of fields) if (obj[f] !== undefined) out[f] = obj[f];
    if (obj.id !== undefined) out.id = obj.id;
    return out;
  }

  /** Splits `id,text,replies{from,text}` at top-level commas. */
  function parseFields(raw: string | undefined): string[] {
    if (!raw) return [];
    const out: string[] = [];
    let depth = 0;
    let cur = '';
    for (const ch of raw) {
      if (ch === '{') depth++;
      if (ch === '}') depth--;
      if (ch === ',' && depth === 0) {
        out.push(cur.trim());
        cur = '';
      } else cur += ch;
    }
    if (cur.trim()) out.push(cur.trim());
    return out;
  }

  function page<T>(items: T[], query: Record<string, string>, basePath: string): Record<string, unknown> {
    const limit = Math.min(Math.max(Number(query.limit ?? 25) || 25, 1), 100);
    const start = query.after ? Number(Buffer.from(query.after, 'base64url').toString()) : 0;
    const slice = items.slice(start, start + limit);
    const end = start + slice.length;
    const paging: Record<string, unknown> = {
      cursors: { before: Buffer.from(String(start)).toString('base64url'), after: Buffer.from(String(end)).toString('base64url') },
    };
    if (end < items.length) {
      const q = new URLSearchParams({ ...query, after: Buffer.from(String(end)).toString('base64url') });
      q.delete('access_token');
      paging.next = `${fake.url}${basePath}?${q.toString()}`;
    }
    return { data: slice, paging };
  }

  function commentFields(c: FakeGraphComment | FakeGraphReply, fields: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = { id: c.id };
    for (const f of fields) {
      if (f === 'from') out.from = c.from;
      else if (f === 'username') out.username = c.from.username;
      else if (f === 'text' || f === 'timestamp') out[f] = c[f];
      else if (f === 'like_count') out.like_count = 0;
      else if (f === 'parent_id' && 'parent_id' in c && c.parent_id) out.parent_id = c.parent_id;
      else if (f === 'media' && 'media_id' in c) out.media = { id: c.media_id };
      else if (f.startsWith('replies') && 'replies' in c) {
        const inner = parseFields(/\{(.*)\}/.exec(f)?.[1] ?? 'id,text,timestamp');
        out.replies = { data: c.replies.map((r) => commentFields(r, inner)) };
      }
    }
    return out;
  }

  function route(method: string, path: string, query: Record<string, string>, body: Record<string, any>): unknown {
    const segs = path.split('/').filter(Boolean);
    const isAccount = (s: string) => s === 'me' || s === state.account.user_id;
    const fields = parseFields(query.fields);

    if (method === 'GET' && segs.length === 1 && segs[0] === 'refresh_access_token') {
      if (query.grant_type !== 'ig_refresh_token') throw new GraphHttpError(400, 'Invalid grant_type', 100);
      state.accessToken = `refreshed-${nextId()}`;
      state.tokenIssuedAt = Math.floor(Date.now() / 1000);
      state.tokenExpiresAt = state.tokenIssuedAt + 5_184_000;
      return { access_token: state.accessToken, token_type: 'bearer', expires_in: 5_184_000 };
    }
    if (method === 'GET' && segs.length === 1 && segs[0] === 'debug_token') {
      if (!query.input_token) throw new GraphHttpError(400, '(#100) The parameter input_token is required', 100);
      const valid = query.input_token === state.accessToken;
      return {
        data: valid
          ? { type: 'USER', application: 'App', is_valid: true, issued_at: state.tokenIssuedAt, expires_at: state.tokenExpiresAt, user_id: state.account.user_id, scopes: ['instagram_business_basic', 'instagram_business_manage_messages', 'instagram_business_manage_comments'] }
          : { is_valid: false, error: { code: 190, message: 'Invalid OAuth access token' } },
      };
    }
    if (segs.length === 1 && isAccount(segs[0]) && method === 'GET') {
      return pick(state.account as unknown as Record<string, unknown>, fields.length ? fields : ['user_id', 'username']);
    }
    if (segs.length === 2 && isAccount(segs[0])) {
      const [, edge] = segs;
      if (edge === 'media' && method === 'GET') {
        return page(state.media.map((m) => mediaFields(m, fields)), query, `/${segs.join('/')}`);
      }
      if (edge === 'subscribed_apps' && method === 'GET') {
        return { data: state.subscribedFields.length ? [{ id: 'app-1', name: 'App', subscribed_fields: state.subscribedFields }] : [] };
      }
      if (edge === 'subscribed_apps' && method === 'POST') {
        const raw = query.subscribed_fields ?? body.subscribed_fields;
        if (!raw) throw new GraphHttpError(400, '(#100) The parameter subscribed_fields is required', 100);
        state.subscribedFields = String(raw).split(',').map((s) => s.trim());
        return { success: true };
      }
      if (edge === 'messages' && method === 'POST') return sendMessage(body);
      if (edge === 'conversations' && method === 'GET') return conversations(query);
      if (edge === 'media' && method === 'POST') return createContainer({ ...body, ...query });
      if (edge === 'media_publish' && method === 'POST') return publishContainer(String(query.creation_id ?? body.creation_id ?? ''));
    }
    if (segs.length === 1 && method === 'GET') {
      const id = segs[0];
      const media = state.media.find((m) => m.id === id);
      if (media) return mediaFields(media, fields);
      const container = state.containers.get(id);
      if (container) return containerFields(container, fields);
      const comment = state.comments.get(id);
      if (comment) return commentFields(comment, fields.length ? fields : ['text', 'timestamp']);
      const user = state.users.get(id);
      if (user) {
        if (user.consent === false) throw new GraphHttpError(400, 'User consent is required to access user profile', 230, 2534014);
        return pick(
          {
            id: user.id,
            username: user.username,
            name: user.name,
            is_user_follow_business: user.follows ?? false,
            is_business_follow_user: false,
            follower_count: 10,
            is_verified_user: false,
          },
          fields.length ? fields : ['username'],
        );
      }
      throw new GraphHttpError(400, `Unsupported get request. Object with ID '${id}' does not exist`, 100, 33, 'GraphMethodException');
    }
    if (segs.length === 2 && segs[1] === 'comments' && method === 'GET') {
      const media = state.media.find((m) => m.id === segs[0]);
      if (!media) throw new GraphHttpError(400, `Unsupported get request. Object with ID '${segs[0]}' does not exist`, 100, 33);
      const list = [...state.comments.values()]
        .filter((c) => c.media_id === media.id && !c.parent_id)
        .sort((a, b) => Date.parse(norm(b.timestamp)) - Date.parse(norm(a.timestamp)));
      return page(list.map((c) => commentFields(c, fields.length ? fields : ['text', 'timestamp'])), query, `/${segs.join('/')}`);
    }
    if (segs.length === 2 && segs[1] === 'replies' && method === 'POST') {
      const comment = state.comments.get(segs[0]);
      if (!comment) throw new GraphHttpError(400, `Unsupported post request. Object with ID '${segs[0]}' does not exist`, 100, 33);
      if (comment.parent_id) throw new GraphHttpError(400, 'Replies are only allowed on top-level comments', 100);
      const message = body.message ?? query.message;
      if (!message) throw new GraphHttpError(400, '(#100) The parameter message is required', 100);
      return { id: fake.addReply(comment.id, String(message)).id };
    }
    throw new GraphHttpError(400, `Unknown path components: /${segs.join('/')}`, 2500, undefined, 'IGApiException');
  }

  function createContainer(params: Record<string, any>): unknown {
    const mediaType = String(params.media_type ?? '');
    if (mediaType !== 'REELS' && mediaType !== 'VIDEO') throw new GraphHttpError(400, '(#100) The parameter media_type must be REELS for a video', 100);
    const resumable = params.upload_type === 'resumable';
    if (!resumable && !params.video_url) throw new GraphHttpError(400, '(#100) The parameter video_url is required', 100);
    let trial: unknown;
    if (params.trial_params !== undefined) {
      try {
        trial = typeof params.trial_params === 'string' ? JSON.parse(params.trial_params) : params.trial_params;
      } catch {
        throw new GraphHttpError(400, '(#100) Param trial_params must be a JSON object', 100);
      }
    }
    const plan = state.containerPlan.shift() ?? {};
    const id = nextId();
    state.containers.set(id, {
      id,
      media_type: mediaType,
      video_url: params.video_url,
      upload_type: params.upload_type,
      caption: params.caption,
      share_to_feed: params.share_to_feed === undefined ? undefined : String(params.share_to_feed) === 'true',
      trial_params: trial,
      uploaded_bytes: 0,
      polls: 0,
      polls_until_done: plan.polls ?? 1,
      error: plan.error,
      status_code: 'IN_PROGRESS',
    });
    return resumable ? { id, uri: `${fake.origin}/ig-api-upload/${version}/${id}` } : { id };
  }

  function containerFields(c: FakeGraphContainer, fields: string[]): Record<string, unknown> {
    if (c.status_code === 'IN_PROGRESS' && (!c.upload_type || c.uploaded_bytes > 0)) {
      c.polls += 1;
      if (c.polls > c.polls_until_done) c.status_code = c.error ? 'ERROR' : 'FINISHED';
    }
    const status = c.status_code === 'ERROR' ? c.error : c.status_code === 'FINISHED' ? 'Finished: Media has been uploaded and it is ready to be published.' : c.status_code === 'PUBLISHED' ? 'Published' : 'In Progress: Media is still being processed.';
    return pick({ id: c.id, status_code: c.status_code, status }, fields.length ? fields : ['status_code']);
  }

  function publishContainer(creationId: string): unknown {
    const c = state.containers.get(creationId);
    if (!c) throw new GraphHttpError(400, `Unsupported post request. Object with ID '${creationId}' does not exist`, 100, 33);
    if (c.status_code === 'PUBLISHED') throw new GraphHttpError(400, 'The media has already been published', 9007, 2207008);
    if (c.status_code !== 'FINISHED') throw new GraphHttpError(400, 'Media ID is not available: the media is not ready for publishing, please wait for a moment', 9007, 2207027);
    const media = fake.addMedia({ media_type: 'VIDEO', media_product_type: 'REELS', caption: c.caption, permalink: undefined });
    media.permalink = `https://www.instagram.com/reel/${media.id}/`;
    c.status_code = 'PUBLISHED';
    c.media_id = media.id;
    return { id: media.id };
  }

  /** The resumable upload host (rupload): `Authorization: OAuth <token>`, `offset`, `file_size`, the bytes as body. */
  function ruploadRequest(path: string, headers: IncomingMessage['headers'], raw: Buffer): { status: number; payload: unknown } {
    const id = path.split('/').filter(Boolean)[2] ?? '';
    const c = state.containers.get(id);
    const auth = String(headers.authorization ?? '');
    if (auth !== `OAuth ${state.accessToken}`) return { status: 400, payload: { debug_info: { type: 'ProcessingFailedError', message: 'Request processing failed: invalid token' } } };
    if (!c || c.upload_type !== 'resumable') return { status: 400, payload: { debug_info: { type: 'ProcessingFailedError', message: 'Request processing failed: unknown container' } } };
    const size = Number(headers.file_size);
    const offset = Number(headers.offset ?? 0);
    if (!Number.isFinite(size) || size !== offset + raw.length) return { status: 400, payload: { debug_info: { type: 'ProcessingFailedError', message: 'file_size does not match the bytes sent' } } };
    c.uploaded_bytes = offset + raw.length;
    return { status: 200, payload: { success: true, message: 'Upload successful.' } };
  }

  function sendMessage(body: Record<string, any>): unknown {
    const recipient = body.recipient ?? {};
    if (!body.message || (typeof body.message !== 'object')) throw new GraphHttpError(400, '(#100) The parameter message is required', 100);
    const message = body.message as { attachment?: { type?: string } };
    const reject = state.rejectTemplates;
    if (message.attachment?.type === 'template' && reject && (reject === 'all' || (reject === 'private_reply') === Boolean(recipient.comment_id))) {
      throw new GraphHttpError(400, TEMPLATE_REJECTED_MESSAGE, 100);
    }
    let recipientId: string;
    if (recipient.comment_id) {
      const comment = state.comments.get(String(recipient.comment_id));
      if (!comment || comment.private_replied) throw new GraphHttpError(400, 'The comment is invalid for a private reply', 10, 2534025);
      comment.private_replied = true;
      recipientId = comment.from.id;
    } else if (recipient.id) {
      recipientId = String(recipient.id);
      if (!state.users.has(recipientId)) throw new GraphHttpError(400, 'No matching user found', 100, 2534014);
    } else throw new GraphHttpError(400, '(#100) The parameter recipient is required', 100);
    const id = `mid.${nextId()}`;
    state.messages.push({ id, recipient, message: body.message, messaging_type: body.messaging_type, tag: body.tag, at: new Date().toISOString() });
    return { recipient_id: recipientId, message_id: id };
  }

  /**
   * `GET /{ig-user-id}/conversations?platform=instagram&user_id=<IGSID>&fields=messages{…}`: the
   * conversation with that person and its 20 newest messages sent by the account (direct messages and
   * private replies; a template shows its text), newest first.
   */
  function conversations(query: Record<string, string>): unknown {
    const userId = query.user_id;
    if (!userId) return { data: [] };
    const to = (m: FakeSentMessage) => (m.recipient.id ? m.recipient.id : state.comments.get(String(m.recipient.comment_id))?.from.id);
    const text = (m: FakeSentMessage) => {
      const msg = m.message as { text?: string; attachment?: { payload?: { text?: string } } };
      return msg.text ?? msg.attachment?.payload?.text ?? '';
    };
    const mine = state.messages.filter((m) => to(m) === userId).reverse().slice(0, 20);
    if (mine.length === 0) return { data: [] };
    const account = { id: state.account.user_id, username: state.account.username };
    const messages = mine.map((m) => ({ id: m.id, created_time: iso(new Date(m.at)), from: account, to: { data: [{ id: userId }] }, message: text(m) }));
    return { data: [{ id: `conv-${userId}`, updated_time: messages[0].created_time, messages: { data: messages } }] };
  }

  /** The login flow's endpoints (see FakeGraphState.oauth); errors in the platform's shapes. */
  function loginRequest(method: string, path: string, query: Record<string, string>, body: Record<string, any>): { location: string } | { status: number; payload: unknown } {
    const oauth = state.oauth;
    const loginError = (message: string) => ({ status: 400, payload: { error_type: 'OAuthException', code: 400, error_message: message } });
    if (path === '/oauth/authorize' && method === 'GET') {
      if (query.client_id !== oauth.appId) return loginError('Invalid platform app');
      if (!query.redirect_uri || query.response_type !== 'code') return loginError('Invalid redirect_uri or response_type');
      if (!String(query.scope ?? '').split(/[ ,]/).includes('instagram_business_basic')) return loginError('Invalid scope: instagram_business_basic is required');
      const target = new URL(query.redirect_uri);
      if (query.deny === '1') {
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_reason', 'user_denied');
        target.searchParams.set('error_description', 'The user denied your request.');
      } else {
        const code = `AQ${nextId()}`;
        oauth.codes.set(code, { redirect_uri: query.redirect_uri, used: false });
        target.searchParams.set('code', code);
      }
      if (query.state !== undefined) target.searchParams.set('state', query.state);
      return { location: `${target.toString()}${query.deny === '1' ? '' : '#_'}` };
    }
    if (path === '/oauth/access_token' && method === 'POST') {
      if (body.client_id !== oauth.appId || body.client_secret !== oauth.appSecret) return loginError('Invalid client_id or client_secret');
      if (body.grant_type !== 'authorization_code') return loginError('Invalid grant_type');
      const code = oauth.codes.get(String(body.code ?? ''));
      if (!code || code.used) return loginError('This authorization code has been used or is invalid');
      if (code.redirect_uri !== body.redirect_uri) return loginError('Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request');
      code.used = true;
      const token = `short-${nextId()}`;
      oauth.shortTokens.add(token);
      return { status: 200, payload: { data: [{ access_token: token, user_id: state.account.user_id, permissions: 'instagram_business_basic,instagram_business_manage_messages,instagram_business_manage_comments' }] } };
    }
    if (path === '/access_token' && method === 'GET') {
      const graphError = (message: string, code: number) => ({ status: 400, payload: { error: { message, type: 'OAuthException', code, fbtrace_id: 'fake' } } });
      if (query.grant_type !== 'ig_exchange_token') return graphError('Invalid grant_type', 100);
      if (query.client_secret !== oauth.appSecret) return graphError('Error validating client secret.', 1);
      if (!oauth.shortTokens.delete(String(query.access_token ?? ''))) return graphError('Invalid OAuth access token - Cannot parse access token', 190);
      state.accessToken = `long-${nextId()}`;
      state.tokenIssuedAt = Math.floor(Date.now() / 1000);
      state.tokenExpiresAt = state.tokenIssuedAt + 5_183_944;
      return { status: 200, payload: { access_token: state.accessToken, token_type: 'bearer', expires_in: 5_183_944 } };
    }
    return loginError(`Unsupported ${method} ${path}`);
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const query = Object.fromEntries(url.searchParams);
      const rawBytes = Buffer.concat(chunks);
      const raw = (req.headers['content-type'] ?? '').includes('octet-stream') || url.pathname.startsWith('/ig-api-upload/') ? '' : rawBytes.toString('utf8');
      let body: Record<string, any> = {};
      if (raw) {
        try {
          body = (req.headers['content-type'] ?? '').includes('json') ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
        } catch {
          body = {};
        }
      }
      const method = (req.method ?? 'GET').toUpperCase();
      const versioned = url.pathname.startsWith(`/${version}/`) || url.pathname === `/${version}`;
      const path = versioned ? url.pathname.slice(version.length + 1) || '/' : url.pathname;
      requests.push({ method, path, query, headers: req.headers, body, at: Date.now() });

      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        const extra: Record<string, string> = { ...headers };
        if (state.usage && !extra['x-business-use-case-usage']) extra['x-business-use-case-usage'] = JSON.stringify(state.usage);
        res.writeHead(status, { 'content-type': 'application/json', ...extra });
        res.end(JSON.stringify(payload));
      };
      const sendError = (e: GraphHttpError, headers?: Record<string, string>) =>
        send(e.status, { error: { message: e.message, type: e.type, code: e.code, error_subcode: e.subcode, fbtrace_id: 'fake' } }, headers);

      const failure = takeFailure(method, path);
      if (failure?.mode === 'delay') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        const realSend = send;
        let answer: () => void = () => undefined;
        const held = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
          answer = () => {
            if (!res.destroyed) realSend(status, payload, headers);
          };
        };
        try {
          held(200, route(method, path, query, body));
        } catch (e) {
          if (e instanceof GraphHttpError) held(e.status, { error: { message: e.message, type: e.type, code: e.code, error_subcode: e.subcode, fbtrace_id: 'fake' } });
          else held(500, { error: { message: String(e), type: 'OAuthException', code: 2 } });
        }
        if (failure.delayMs !== undefined) setTimeout(() => answer(), failure.delayMs).unref?.();
        return;
      }
      if (failure?.mode === 'cut') {
        try {
          route(method, path, query, body);
        } catch {
          /* the outcome is never answered */
        }
        req.socket.destroy();
        return;
      }
      if (failure) {
        if (failure.mode === 'timeout') {
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
        if (failure.mode === 'reset') {
          req.socket.destroy();
          return;
        }
        const code = failure.code ?? 2;
        const message = failure.message ?? THROTTLE_MESSAGES[code] ?? (code === 190 ? 'Error validating access token: Session has expired' : 'An unexpected error has occurred. Please retry your request later.');
        return sendError(new GraphHttpError(failure.status ?? (code === 2 ? 500 : 400), message, code, failure.subcode, failure.type ?? 'OAuthException'), failure.headers);
      }

      if (url.pathname.startsWith('/ig-api-upload/')) {
        const answer = ruploadRequest(url.pathname, req.headers, rawBytes);
        return send(answer.status, answer.payload);
      }
      if (path === '/oauth/authorize' || path === '/oauth/access_token' || path === '/access_token') {
        const answer = loginRequest(method, path, query, body);
        if ('location' in answer) {
          res.writeHead(302, { location: answer.location });
          return res.end();
        }
        return send(answer.status, answer.payload);
      }
      if (!versioned && path !== '/refresh_access_token') {
        return sendError(new GraphHttpError(400, 'Unsupported version', 2635, undefined, 'IGApiException'));
      }
      const auth = req.headers.authorization;
      const token = auth?.startsWith('Bearer ') ? auth.slice(7) : (query.access_token ?? body.access_token);
      if (token !== state.accessToken) {
        return sendError(new GraphHttpError(400, 'Invalid OAuth access token - Cannot parse access token', 190));
      }
      try {
        send(200, route(method, path, query, body));
      } catch (e) {
        if (e instanceof GraphHttpError) return sendError(e);
        send(500, { error: { message: String(e), type: 'OAuthException', code: 2 } });
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.origin = `http://127.0.0.1:${port}`;
  fake.url = `${fake.origin}/${version}`;
  return fake;
}
