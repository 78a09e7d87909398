import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of the YouTube Data API v3 upload path and Google's OAuth 2.0 token endpoint for tests:
 * node:http on 127.0.0.1, port 0, in-memory state, the real shapes of the resumable upload protocol.
 *
 * - `POST /token` (form): `grant_type=refresh_token`, `client_id`, `client_secret`, `refresh_token`
 *   → `{access_token, expires_in, token_type: "Bearer", scope}`; unknown refresh token → 400
 *   `{error: "invalid_grant"}`, wrong client → 401 `{error: "invalid_client"}`.
 * - `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with the video resource
 *   as JSON and `X-Upload-Content-Length` / `X-Upload-Content-Type` → 200 with the session URI in
 *   `Location`. A missing or too long title → 400 `invalidTitle`.
 * - `PUT <session URI>` with `Content-Range: bytes a-b/total` (a chunk) → 308 with
 *   `Range: bytes=0-<last byte received>` while incomplete, 200 with the video resource when the last
 *   byte arrived; `Content-Range: bytes *\/total` and no body asks for the status the same way.
 *
 * Errors use Google's shape `{error: {code, message, errors: [{reason, domain, message}]}}`; `fail()`
 * injects them (or drops the connection) for the next matching requests, `truncateNextChunk` keeps
 * only the first bytes of the next chunk (as when a connection breaks mid-upload), so clients must
 * resume from the `Range` the server reports.
 */

export interface FakeYouTubeVideo {
  id: string;
  title: string;
  description: string;
  privacyStatus: string;
  publishAt?: string;
  categoryId?: string;
  contentType: string;
  bytes: number;
  publishedAt: string;
}

export interface FakeYouTubeSession {
  id: string;
  total: number;
  contentType: string;
  received: Buffer[];
  receivedBytes: number;
  resource: { snippet?: Record<string, unknown>; status?: Record<string, unknown> };
  videoId?: string;
}

export interface YouTubeFailure {
  /** `initiate` (POST …/videos), `chunk` (PUT with bytes), `status` (PUT bytes *\/total), `token`. */
  on: 'initiate' | 'chunk' | 'status' | 'token';
  times?: number;
  /** `error` (default) answers status/reason; `reset` destroys the socket. */
  mode?: 'error' | 'reset';
  status?: number;
  reason?: string;
  message?: string;
}

export interface RecordedYouTubeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  bytes: number;
}

export interface FakeYouTubeApi {
  /** API origin (`YOUTUBE_API_URL`). */
  url: string;
  /** Token endpoint (`YOUTUBE_TOKEN_URL`). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  channelId: string;
  videos: FakeYouTubeVideo[];
  sessions: Map<string, FakeYouTubeSession>;
  requests: RecordedYouTubeRequest[];
  /** Access tokens handed out; clearing it makes every issued token invalid (401). */
  accessTokens: Set<string>;
  /** Keep only this many bytes of the next chunk (then 308 with the shorter Range). */
  truncateNextChunk?: number;
  fail(failure: YouTubeFailure): void;
  reset(): void;
  close(): Promise<void>;
}

function googleError(status: number, reason: string, message: string) {
  return { error: { code: status, message, errors: [{ message, domain: reason === 'quotaExceeded' ? 'youtube.quota' : 'global', reason }] } };
}

export async function startFakeYouTubeApi(opts: { clientId?: string; clientSecret?: string; refreshToken?: string } = {}): Promise<FakeYouTubeApi> {
  const requests: RecordedYouTubeRequest[] = [];
  let failures: Array<YouTubeFailure & { remaining: number }> = [];
  let seq = 0;

  const fake: FakeYouTubeApi = {
    url: '',
    tokenUrl: '',
    clientId: opts.clientId ?? 'yt-client',
    clientSecret: opts.clientSecret ?? 'yt-secret',
    refreshToken: opts.refreshToken ?? 'yt-refresh',
    channelId: 'UCfakechannel0000000000',
    videos: [],
    sessions: new Map(),
    requests,
    accessTokens: new Set(),
    fail(f) {
      failures.push({ ...f, remaining: f.times ?? 1 });
    },
    reset() {
      fake.videos.length = 0;
      fake.sessions.clear();
      requests.length = 0;
      fake.accessTokens.clear();
      fake.truncateNextChunk = undefined;
      failures = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  function takeFailure(on: YouTubeFailure['on']): YouTubeFailure | undefined {
    const f = failures.find((x) => x.on === on && x.remaining > 0);
    if (!f) return undefined;
    f.remaining -= 1;
    failures = failures.filter((x) => x.remaining > 0);
    return f;
  }

  const videoResource = (v: FakeYouTubeVideo) => ({
    kind: 'youtube#video',
    etag: `etag-${v.id}`,
    id: v.id,
    snippet: { publishedAt: v.publishedAt, channelId: fake.channelId, title: v.title, description: v.description, categoryId: v.categoryId ?? '22' },
    status: { uploadStatus: 'uploaded', privacyStatus: v.privacyStatus, ...(v.publishAt ? { publishAt: v.publishAt } : {}) },
  });

  function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    res.end(JSON.stringify(body));
  }

  function authorized(req: IncomingMessage): boolean {
    const auth = String(req.headers.authorization ?? '');
    return auth.startsWith('Bearer ') && fake.accessTokens.has(auth.slice(7));
  }

  function progress(res: ServerResponse, s: FakeYouTubeSession): void {
    if (s.videoId) {
      const v = fake.videos.find((x) => x.id === s.videoId)!;
      return json(res, 200, videoResource(v));
    }
    res.writeHead(308, s.receivedBytes > 0 ? { range: `bytes=0-${s.receivedBytes - 1}` } : {});
    res.end();
  }

  function complete(s: FakeYouTubeSession): FakeYouTubeVideo {
    const snippet = s.resource.snippet ?? {};
    const status = s.resource.status ?? {};
    const id = `yt${randomBytes(4).toString('hex')}${++seq}`;
    const v: FakeYouTubeVideo = {
      id,
      title: String(snippet.title),
      description: String(snippet.description ?? ''),
      categoryId: snippet.categoryId as string | undefined,
      privacyStatus: String(status.privacyStatus ?? 'public'),
      publishAt: status.publishAt as string | undefined,
      contentType: s.contentType,
      bytes: s.receivedBytes,
      publishedAt: new Date().toISOString(),
    };
    fake.videos.push(v);
    s.videoId = id;
    return v;
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const query = Object.fromEntries(url.searchParams);
      const body = Buffer.concat(chunks);
      const method = (req.method ?? 'GET').toUpperCase();
      requests.push({ method, path: url.pathname, query, headers: req.headers, bytes: body.length });

      const failWith = (on: YouTubeFailure['on']): boolean => {
        const f = takeFailure(on);
        if (!f) return false;
        if (f.mode === 'reset') {
          req.socket.destroy();
          return true;
        }
        const status = f.status ?? 503;
        json(res, status, googleError(status, f.reason ?? 'backendError', f.message ?? 'Backend Error'));
        return true;
      };

      if (method === 'POST' && url.pathname === '/token') {
        if (failWith('token')) return;
        const form = new URLSearchParams(body.toString('utf8'));
        if (form.get('client_id') !== fake.clientId || form.get('client_secret') !== fake.clientSecret) {
          return json(res, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
        }
        if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== fake.refreshToken) {
          return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        }
        const token = `ya29.${randomBytes(12).toString('hex')}`;
        fake.accessTokens.add(token);
        return json(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer', scope: 'https://www.googleapis.com/auth/youtube.upload' });
      }

      if (url.pathname === '/upload/youtube/v3/videos' && method === 'POST') {
        if (!authorized(req)) return json(res, 401, googleError(401, 'authError', 'Invalid Credentials'));
        if (failWith('initiate')) return;
        if (query.uploadType !== 'resumable') return json(res, 400, googleError(400, 'invalidParameter', 'uploadType must be resumable'));
        const total = Number(req.headers['x-upload-content-length']);
        if (!Number.isInteger(total) || total <= 0) return json(res, 400, googleError(400, 'invalidParameter', 'X-Upload-Content-Length is required'));
        let resource: FakeYouTubeSession['resource'];
        try {
          resource = JSON.parse(body.toString('utf8') || '{}');
        } catch {
          return json(res, 400, googleError(400, 'parseError', 'Parse Error'));
        }
        const title = resource.snippet?.title;
        if (typeof title !== 'string' || !title.trim() || title.length > 100 || /[<>]/.test(title)) {
          return json(res, 400, googleError(400, 'invalidTitle', 'The request metadata specifies an invalid or empty video title.'));
        }
        const id = randomBytes(8).toString('hex');
        fake.sessions.set(id, { id, total, contentType: String(req.headers['x-upload-content-type'] ?? 'video/*'), received: [], receivedBytes: 0, resource });
        res.writeHead(200, { location: `${fake.url}/upload/youtube/v3/videos?uploadType=resumable&part=${query.part ?? 'snippet,status'}&upload_id=${id}`, 'content-length': '0' });
        return res.end();
      }

      if (url.pathname === '/upload/youtube/v3/videos' && method === 'PUT') {
        const s = fake.sessions.get(query.upload_id ?? '');
        if (!s) return json(res, 404, googleError(404, 'notFound', 'Upload session not found'));
        const range = String(req.headers['content-range'] ?? '');
        const statusQuery = /^bytes \*\/\d+$/.test(range);
        if (statusQuery) {
          if (failWith('status')) return;
          return progress(res, s);
        }
        if (failWith('chunk')) return;
        const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
        const start = m ? Number(m[1]) : 0;
        if (m && (Number(m[3]) !== s.total || Number(m[2]) - start + 1 !== body.length)) return json(res, 400, googleError(400, 'badContent', 'Content-Range does not match the body'));
        if (!m && body.length !== s.total) return json(res, 400, googleError(400, 'badContent', 'Content-Range is required for a partial upload'));
        if (start !== s.receivedBytes) return progress(res, s);
        let take = body;
        if (fake.truncateNextChunk !== undefined) {
          take = body.subarray(0, fake.truncateNextChunk);
          fake.truncateNextChunk = undefined;
        }
        s.received.push(take);
        s.receivedBytes += take.length;
        if (s.receivedBytes === s.total) complete(s);
        return progress(res, s);
      }

      json(res, 404, googleError(404, 'notFound', `Not Found: ${method} ${url.pathname}`));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.tokenUrl = `${fake.url}/token`;
  return fake;
}
