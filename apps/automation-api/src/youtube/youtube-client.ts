import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import type { VideoBytes } from '../videos/videos.service';

/** Settings of the YouTube Data API client (configuration: YOUTUBE_*). */
export interface YouTubeClientConfig {
  /** API origin, e.g. https://www.googleapis.com */
  apiUrl: string;
  /** OAuth 2.0 token endpoint, e.g. https://oauth2.googleapis.com/token */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  /** Bytes per PUT (a multiple of 256 KiB except the last chunk). */
  chunkBytes: number;
  /** Status queries after a broken chunk before giving up. */
  maxResumes?: number;
}

export interface YouTubeUpload {
  title: string;
  description: string;
  privacyStatus: 'public' | 'unlisted' | 'private';
  video: VideoBytes;
  /** A session URI of an earlier attempt: resumed where the server says it stands. */
  sessionUri?: string | null;
  /** Called with the session URI before the first byte is sent (store it to resume after a crash). */
  onSession?: (uri: string) => Promise<void>;
}

export interface YouTubeVideo {
  id: string;
  permalink: string;
  publishedAt: string | null;
}

/** A failed YouTube call; `retryable` for 5xx, timeouts and broken connections. */
export class YouTubeApiError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly reason: string | null,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const CHUNK_UNIT = 262_144;

/**
 * YouTube Data API v3 uploads with the resumable protocol: an access token from the refresh token
 * (OAuth 2.0 token endpoint, cached until shortly before it expires), `POST
 * /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with the metadata → session
 * URI, then `PUT` chunks with `Content-Range: bytes a-b/total`; `308` + `Range` tells how much
 * arrived. After a broken chunk (5xx, reset, timeout) it asks `Content-Range: bytes *\/total` and
 * resumes from the reported offset. A given `sessionUri` (an earlier attempt) is resumed the same
 * way, so a restarted upload never creates a second video.
 */
export class YouTubeClient {
  private readonly tokens = new Map<string, { token: string; until: number }>();

  constructor(
    private readonly config: YouTubeClientConfig,
    private readonly dispatcher?: Dispatcher,
  ) {}

  async accessToken(refreshToken: string, fresh = false): Promise<string> {
    const cached = this.tokens.get(refreshToken);
    if (!fresh && cached && cached.until > Date.now()) return cached.token;
    const res = await this.send(this.config.tokenUrl, 'POST', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.config.clientId, client_secret: this.config.clientSecret }).toString(),
    });
    const body = (await readJson(res)) as { access_token?: string; expires_in?: number; error?: string; error_description?: string };
    if (res.statusCode !== 200 || !body.access_token) {
      throw new YouTubeApiError(`YouTube token refresh failed: ${body.error_description ?? body.error ?? `HTTP ${res.statusCode}`}`, res.statusCode, body.error ?? null, res.statusCode >= 500);
    }
    this.tokens.set(refreshToken, { token: body.access_token, until: Date.now() + Math.max(0, (body.expires_in ?? 3600) - 60) * 1000 });
    return body.access_token;
  }

  async upload(refreshToken: string, u: YouTubeUpload): Promise<YouTubeVideo> {
    let token = await this.accessToken(refreshToken);
    let sessionUri = u.sessionUri ?? null;
    let offset = 0;
    if (sessionUri) {
      const state = await this.status(sessionUri, token, u.video.size);
      if ('video' in state) return state.video;
      if (state.gone) sessionUri = null;
      else offset = state.offset;
    }
    if (!sessionUri) {
      try {
        sessionUri = await this.initiate(token, u);
      } catch (err) {
        if (!(err instanceof YouTubeApiError) || err.status !== 401) throw err;
        token = await this.accessToken(refreshToken, true);
        sessionUri = await this.initiate(token, u);
      }
      await u.onSession?.(sessionUri);
    }
    const chunk = Math.max(CHUNK_UNIT, Math.floor(this.config.chunkBytes / CHUNK_UNIT) * CHUNK_UNIT);
    let resumes = 0;
    for (;;) {
      const end = Math.min(offset + chunk, u.video.size) - 1;
      let res: Dispatcher.ResponseData | null = null;
      try {
        res = await this.send(sessionUri, 'PUT', {
          headers: { authorization: `Bearer ${token}`, 'content-type': u.video.contentType, 'content-length': String(end - offset + 1), 'content-range': `bytes ${offset}-${end}/${u.video.size}` },
          body: u.video.open(offset, end),
        });
      } catch (err) {
        if (!(err instanceof YouTubeApiError) || !err.retryable) throw err;
      }
      if (res && (res.statusCode === 200 || res.statusCode === 201)) return toVideo(await readJson(res));
      if (res && res.statusCode === 308) {
        await res.body.dump();
        offset = rangeEnd(res.headers.range);
        continue;
      }
      if (res && res.statusCode < 500) throw await apiError(res, 'YouTube upload');
      if (res) await res.body.dump();
      // A broken chunk: ask where the upload stands and go on from there.
      if (++resumes > (this.config.maxResumes ?? 5)) throw new YouTubeApiError('YouTube upload: too many interrupted chunks', res?.statusCode ?? null, 'backendError', true);
      const state = await this.status(sessionUri, token, u.video.size);
      if ('video' in state) return state.video;
      if (state.gone) throw new YouTubeApiError('YouTube upload: the upload session expired', 404, 'notFound', true);
      offset = state.offset;
    }
  }

  private async initiate(token: string, u: YouTubeUpload): Promise<string> {
    const url = new URL('/upload/youtube/v3/videos', this.config.apiUrl);
    url.searchParams.set('uploadType', 'resumable');
    url.searchParams.set('part', 'snippet,status');
    const res = await this.send(url.toString(), 'POST', {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-length': String(u.video.size),
        'x-upload-content-type': u.video.contentType,
      },
      body: JSON.stringify({ snippet: { title: u.title, description: u.description }, status: { privacyStatus: u.privacyStatus, selfDeclaredMadeForKids: false } }),
    });
    if (res.statusCode !== 200 && res.statusCode !== 201) throw await apiError(res, 'YouTube upload start');
    await res.body.dump();
    const location = res.headers.location;
    if (typeof location !== 'string' || !location) throw new YouTubeApiError('YouTube upload start: no session URI in Location', res.statusCode, null, true);
    return location;
  }

  /** Where an upload session stands: the video when complete, else the next offset; gone when the session is unknown. */
  private async status(sessionUri: string, token: string, size: number): Promise<{ video: YouTubeVideo } | { offset: number; gone: boolean }> {
    const res = await this.send(sessionUri, 'PUT', { headers: { authorization: `Bearer ${token}`, 'content-length': '0', 'content-range': `bytes */${size}` }, body: Readable.from([]) });
    if (res.statusCode === 200 || res.statusCode === 201) return { video: toVideo(await readJson(res)) };
    if (res.statusCode === 308) {
      await res.body.dump();
      return { offset: rangeEnd(res.headers.range), gone: false };
    }
    if (res.statusCode === 404 || res.statusCode === 410) {
      await res.body.dump();
      return { offset: 0, gone: true };
    }
    throw await apiError(res, 'YouTube upload status');
  }

  private async send(url: string, method: Dispatcher.HttpMethod, init: { headers: Record<string, string>; body?: string | Readable }): Promise<Dispatcher.ResponseData> {
    try {
      return await request(url, { method, headers: init.headers, body: init.body, dispatcher: this.dispatcher, headersTimeout: this.config.timeoutMs, bodyTimeout: this.config.timeoutMs });
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      throw new YouTubeApiError(`YouTube API unreachable (${code || (err as Error).message})`, null, code.includes('TIMEOUT') ? 'timeout' : 'network', true);
    }
  }
}

function rangeEnd(range: string | string[] | undefined): number {
  const m = /bytes=0-(\d+)/.exec(String(range ?? ''));
  return m ? Number(m[1]) + 1 : 0;
}

async function readJson(res: Dispatcher.ResponseData): Promise<any> {
  const text = await res.body.text();
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

async function apiError(res: Dispatcher.ResponseData, what: string): Promise<YouTubeApiError> {
  const body = (await readJson(res)) as { error?: { message?: string; errors?: Array<{ reason?: string }> } };
  const reason = body.error?.errors?.[0]?.reason ?? null;
  const message = body.error?.message ?? `HTTP ${res.statusCode}`;
  return new YouTubeApiError(`${what}: ${message}${reason ? ` (${reason})` : ''}`, res.statusCode, reason, res.statusCode >= 500 || reason === 'rateLimitExceeded');
}

function toVideo(body: { id?: string; snippet?: { publishedAt?: string } }): YouTubeVideo {
  if (!body.id) throw new YouTubeApiError('YouTube upload finished without a video id', 200, null, false);
  return { id: body.id, permalink: `https://www.youtube.com/watch?v=${body.id}`, publishedAt: body.snippet?.publishedAt ?? null };
}
