import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake reranker on loopback, 127.0.0.1 and port 0, answering the two shapes rerank servers use:
 *
 * - `POST /v1/rerank` (Cohere, Jina, vLLM, Infinity): `{model, query, documents: string[], top_n?}`
 *   → `{model, results: [{index, relevance_score}]}` best first, `top_n` of them;
 * - `POST /rerank` (Hugging Face text-embeddings-inference): `{query, texts: string[]}` →
 *   `[{index, score}]` best first.
 *
 * The score of a document is the share of the query's words (lower case, `[a-z0-9]+`) it contains,
 * so tests can reason about the order. `mode` makes it fail (503) or hang; `requests` records what
 * was asked (with the `authorization` header).
 */
export interface FakeRerankApi {
  /** base URL (`…/v1`): the Cohere-style route is `${url}/rerank` */
  url: string;
  /** the origin: the TEI-style route is `${origin}/rerank` */
  origin: string;
  requests: Array<{ path: string; query: string; documents: string[]; model?: string; topN?: number; authorization?: string }>;
  mode: 'ok' | 'fail' | 'hang';
  close(): Promise<void>;
}

export function fakeRerankScore(query: string, document: string): number {
  const words = [...new Set(query.toLowerCase().match(/[a-z0-9]+/g) ?? [])];
  if (words.length === 0) return 0;
  const have = new Set(document.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  return words.filter((w) => have.has(w)).length / words.length;
}

export async function startFakeRerankApi(): Promise<FakeRerankApi> {
  const state: { mode: FakeRerankApi['mode'] } = { mode: 'ok' };
  const requests: FakeRerankApi['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || (path !== '/v1/rerank' && path !== '/rerank')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
        return;
      }
      let parsed: { model?: string; query?: unknown; documents?: unknown; texts?: unknown; top_n?: number };
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"invalid JSON"}');
        return;
      }
      const documents = path === '/rerank' ? parsed.texts : parsed.documents;
      if (typeof parsed.query !== 'string' || !Array.isArray(documents) || !documents.every((d) => typeof d === 'string')) {
        res.writeHead(422, { 'content-type': 'application/json' }).end('{"message":"query (string) and documents (strings) are required"}');
        return;
      }
      requests.push({ path, query: parsed.query, documents: documents as string[], model: parsed.model, topN: parsed.top_n, authorization: req.headers.authorization });
      if (state.mode === 'hang') return;
      if (state.mode === 'fail') {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"overloaded"}');
        return;
      }
      const query = parsed.query;
      const ranked = (documents as string[])
        .map((d, index) => ({ index, score: fakeRerankScore(query, d) }))
        .sort((a, b) => b.score - a.score || a.index - b.index);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (path === '/rerank') res.end(JSON.stringify(ranked));
      else {
        const top = ranked.slice(0, parsed.top_n ?? ranked.length);
        res.end(JSON.stringify({ model: parsed.model ?? 'fake-rerank', results: top.map((r) => ({ index: r.index, relevance_score: r.score })) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
