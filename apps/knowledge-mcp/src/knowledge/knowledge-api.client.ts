import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Agent, request } from 'undici';
import { KnowledgeMcpConfig } from '../config';

/** knowledge-api answered an error status (its `{error}` or `{success: false, message}` body). */
export class KnowledgeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KnowledgeApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

/**
 * knowledge-api's REST over HTTP (undici, kept-alive connections): the only way this server reads
 * or writes anything. Sends KNOWLEDGE_API_KEY as `X-API-Key`. Error statuses become
 * KnowledgeApiError with knowledge-api's own message; no answer within KNOWLEDGE_API_TIMEOUT_MS,
 * or no connection, becomes a KnowledgeApiError with status 502.
 */
@Injectable()
export class KnowledgeApiClient implements OnModuleDestroy {
  private readonly base: string;
  private readonly agent: Agent;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  /** Each answer's JSON text, for as long as the answer object lives. */
  private readonly bodies = new WeakMap<object, string>();

  constructor(config: KnowledgeMcpConfig) {
    this.base = config.KNOWLEDGE_API_URL.replace(/\/+$/, '');
    this.timeoutMs = config.KNOWLEDGE_API_TIMEOUT_MS;
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
    this.headers = { accept: 'application/json', ...(config.KNOWLEDGE_API_KEY ? { 'x-api-key': config.KNOWLEDGE_API_KEY } : {}) };
  }

  get baseUrl(): string {
    return this.base;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.call<T>('GET', path, undefined, query);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('POST', path, body ?? {});
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, query?: Query): Promise<T> {
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    let res;
    try {
      res = await request(url, {
        method,
        dispatcher: this.agent,
        headers: body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (err) {
      throw new KnowledgeApiError(502, `knowledge-api at ${this.base} did not answer ${method} ${path}: ${(err as Error).message}`);
    }
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: text.slice(0, 500) };
    }
    if (res.statusCode >= 400) {
      const b = (parsed ?? {}) as { error?: unknown; message?: unknown };
      const message = typeof b.error === 'string' ? b.error : typeof b.message === 'string' ? b.message : `HTTP ${res.statusCode}`;
      throw new KnowledgeApiError(res.statusCode, message);
    }
    if (text && parsed !== null && typeof parsed === 'object') this.bodies.set(parsed, text);
    return parsed as T;
  }

  /**
   * The JSON text knowledge-api answered for `answer` (an object this client returned, unchanged
   * since), so a tool passing the answer on as is need not serialise it again.
   */
  bodyOf(answer: object): string | undefined {
    return this.bodies.get(answer);
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}
