import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Client of an OpenAI-compatible embeddings server (`POST {base}/v1/embeddings` with
 * `{model, input: string[]}` → `{data: [{index, embedding}]}`; OpenAI, Ollama, vLLM, LM Studio,
 * text-embeddings-inference all answer it). The base URL may end in `/v1` or not. Transient
 * failures (connection refused, 429, 5xx) are retried twice with backoff; vectors come back
 * normalised to unit length, so cosine similarity is their dot product.
 */
export class EmbeddingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddingsError';
  }
}

export interface EmbeddingsClientOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  /** inputs per request */
  batchSize?: number;
  attempts?: number;
}

export function embeddingsEndpoint(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return /\/v\d+$/.test(trimmed) ? `${trimmed}/embeddings` : `${trimmed}/v1/embeddings`;
}

export function normalize(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

const TRANSIENT = new Set([408, 429, 500, 502, 503, 504]);

export class EmbeddingsClient {
  private readonly endpoint: string;

  constructor(private readonly opts: EmbeddingsClientOptions) {
    this.endpoint = embeddingsEndpoint(opts.baseUrl);
  }

  get model(): string {
    return this.opts.model;
  }

  async embed(inputs: string[]): Promise<number[][]> {
    const size = this.opts.batchSize ?? 64;
    const out: number[][] = [];
    for (let i = 0; i < inputs.length; i += size) out.push(...(await this.embedBatch(inputs.slice(i, i + size))));
    return out;
  }

  /** A one-word request: throws when the server does not answer correctly (health detail). */
  async probe(): Promise<void> {
    await this.embedBatch(['ping'], 1);
  }

  private async embedBatch(input: string[], attempts = this.opts.attempts ?? 3): Promise<number[][]> {
    let lastError: Error = new EmbeddingsError('no attempt made');
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return await this.request(input);
      } catch (err) {
        lastError = err as Error;
        if (!(err as { transient?: boolean }).transient || attempt === attempts) break;
        await sleep(250 * 2 ** (attempt - 1));
      }
    }
    throw lastError;
  }

  private async request(input: string[]): Promise<number[][]> {
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.opts.model, input }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      throw Object.assign(new EmbeddingsError(`embeddings server ${this.endpoint} unreachable: ${(err as Error).message}`), {
        transient: true,
      });
    }
    const text = await res.text();
    if (!res.ok) {
      throw Object.assign(new EmbeddingsError(`embeddings server answered ${res.status}: ${text.slice(0, 200)}`), {
        transient: TRANSIENT.has(res.status),
      });
    }
    let body: { data?: Array<{ index?: number; embedding?: unknown }> };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new EmbeddingsError('embeddings server answered with something that is not JSON');
    }
    const data = body.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbeddingsError(`embeddings server returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${input.length} inputs`);
    }
    const sorted = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return sorted.map((d) => {
      const v = d.embedding;
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbeddingsError('embeddings server returned a vector that is not a list of numbers');
      }
      return normalize(v as number[]);
    });
  }
}
