/**
 * Client of a rerank endpoint, the two shapes servers answer:
 * - Cohere / Jina / vLLM / Infinity: `POST …/rerank` `{model, query, documents, top_n}` →
 *   `{results: [{index, relevance_score}]}`;
 * - text-embeddings-inference: `POST /rerank` `{query, texts}` → `[{index, score}]`.
 * The URL is the endpoint itself when it ends in `/rerank`, else `/rerank` is appended
 * (`https://api.jina.ai/v1` → `https://api.jina.ai/v1/rerank`). One attempt within `timeoutMs`:
 * a query waits for it, so a failure is answered by the caller with the unreranked order.
 */
export interface RerankClientOptions {
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs: number;
}

export function rerankEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/rerank') ? trimmed : `${trimmed}/rerank`;
}

export class RerankClient {
  readonly endpoint: string;

  constructor(private readonly opts: RerankClientOptions) {
    this.endpoint = rerankEndpoint(opts.url);
  }

  /** Scores of the documents for the query, best first: `{index, score}` (index into `documents`). */
  async rerank(query: string, documents: string[]): Promise<Array<{ index: number; score: number }>> {
    if (documents.length === 0) return [];
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) },
        // both shapes in one body: Cohere-style servers read `documents`, text-embeddings-inference `texts`
        body: JSON.stringify({ ...(this.opts.model ? { model: this.opts.model } : {}), query, documents, texts: documents, top_n: documents.length }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      throw new Error(`rerank server ${this.endpoint} did not answer: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`rerank server answered ${res.status}: ${text.slice(0, 200)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error('rerank server answered with something that is not JSON');
    }
    return parseRerankAnswer(body, documents.length);
  }
}

/** Either shape → `{index, score}` best first; throws on anything else. */
export function parseRerankAnswer(body: unknown, count: number): Array<{ index: number; score: number }> {
  const list = Array.isArray(body) ? body : (body as { results?: unknown })?.results;
  if (!Array.isArray(list)) throw new Error('rerank server answered without `results`');
  const out = list.map((r: { index?: unknown; relevance_score?: unknown; score?: unknown }) => {
    const score = typeof r.relevance_score === 'number' ? r.relevance_score : r.score;
    if (typeof r.index !== 'number' || !Number.isInteger(r.index) || r.index < 0 || r.index >= count || typeof score !== 'number' || !Number.isFinite(score)) {
      throw new Error('rerank server answered a result without a valid index and score');
    }
    return { index: r.index, score };
  });
  return out.sort((a, b) => b.score - a.score);
}
