import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible embeddings server on loopback (`POST /v1/embeddings`). Vectors are
 * bags of hashed word stems in `dimensions` buckets, so texts sharing words are close, as a real
 * model would place them; deterministic, so tests can reason about rankings.
 */
export interface FakeEmbeddings {
  url: string;
  requests: Array<{ model: string; input: string[] }>;
  /** `ok` answers; `fail` answers 503; `hang` never answers (a hung server) */
  mode: 'ok' | 'fail' | 'hang';
  close(): Promise<void>;
}

export function fakeVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const stem = word.slice(0, 6);
    const h = createHash('md5').update(stem).digest();
    v[h.readUInt32BE(0) % dimensions] += 1;
  }
  return v;
}

export async function startFakeEmbeddings(opts: { dimensions?: number } = {}): Promise<FakeEmbeddings> {
  const dimensions = opts.dimensions ?? 64;
  const requests: FakeEmbeddings['requests'] = [];
  const state = { mode: 'ok' as FakeEmbeddings['mode'] };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const parsed = JSON.parse(body) as { model: string; input: string | string[] };
      const input = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
      requests.push({ model: parsed.model, input });
      if (state.mode === 'hang') return;
      if (state.mode === 'fail') {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: parsed.model,
          data: input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, dimensions) })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
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
