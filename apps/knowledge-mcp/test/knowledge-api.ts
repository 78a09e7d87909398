// knowledge-api itself, built and started in a child process on a throwaway database, with a small
// website on loopback that it crawls: the data the MCP tools search. Nothing of knowledge-api's code is
// imported (an app never imports another); the MCP server reaches it over HTTP as in production.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBuiltApp } from '@platform/testing';


export interface RunningKnowledgeApi {
  url: string;
  key: string;
  /** A JSON call with the key. */
  call<T = any>(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Crawls `url` and resolves once the crawl completed (polls its progress). */
  crawl(url: string): Promise<void>;
  close(): Promise<void>;
}

export async function startKnowledgeApi(extraEnv: Record<string, string> = {}): Promise<RunningKnowledgeApi> {
  const key = 'knowledge-api-test-key-0123456789';
  const app = await startBuiltApp('knowledge-api', {
    database: true,
    unset: ['AMQP_URL', 'REDIS_URL', 'EMBEDDINGS_URL', 'RERANK_URL', 'LLM_URL', 'DOCKER_HOST', 'KUBECONFIG'],
    env: { KNOWLEDGE_API_KEY: key, CRAWL_ALLOW_PRIVATE: 'true', CRAWL_HOST_DELAY_MS: '0', CRAWL_POLL_MS: '100', ...extraEnv },
  });
  const { url, close } = app;

  const call = async <T>(method: string, urlPath: string, body?: unknown) => {
    const res = await fetch(`${url}${urlPath}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };

  const crawl = async (target: string) => {
    const started = await call<{ progress_id: string }>('POST', '/api/knowledge-items/crawl', { url: target, knowledge_type: 'technical', max_depth: 2 });
    if (started.status !== 200) throw new Error(`crawl answered ${started.status}: ${JSON.stringify(started.body)}`);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const p = await call<{ status: string; error?: string }>('GET', `/api/progress/${started.body.progress_id}`);
      if (p.body?.status === 'completed') return;
      if (p.body?.status === 'error' || p.body?.status === 'cancelled') throw new Error(`crawl ended ${p.body.status}: ${p.body.error ?? ''}`);
      if (Date.now() > deadline) throw new Error(`crawl not completed within 60 s: ${JSON.stringify(p.body)}\n${app.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  return { url, key, call, crawl, close };
}

/** Python code long enough (≥ 250 characters) to be stored as a code example. */
export const RETRY_CODE = `import time
import urllib.request

def fetch_with_backoff(url, attempts=5):
    delay = 0.5
    for attempt in range(attempts):
        try:
            return urllib.request.urlopen(url, timeout=10).read()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(delay)
            delay *= 2`;

/** A two-page documentation site on loopback: the crawl's start page links to a page with a code example. */
export async function startDocsSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const pages: Record<string, string> = {
    '/': `<html><head><title>Heliograph manual</title></head><body><main><h1>Heliograph manual</h1>
<p>The heliograph signals with mirrors that flash sunlight towards a distant station.</p>
<p>Read about <a href="/retries">retrying downloads</a>.</p></main></body></html>`,
    '/retries': `<html><head><title>Retrying downloads</title></head><body><main><h1>Retrying downloads</h1>
<p>Retry failed downloads with exponential backoff so a busy server can recover.</p>
<pre><code class="language-python">${RETRY_CODE.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</code></pre></main></body></html>`,
  };
  const server = createServer((req, res) => {
    const body = pages[(req.url ?? '/').split('?')[0]];
    if (req.url === '/robots.txt' || !body) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
