// The transcribe-api bench's load generator and engine, in a process of their own as real clients
// and a real transcription server are: the service under test does not share its event loop with
// them. Started with fork(); prints nothing, says `{ ready: true, engineUrl }` once its engine
// listens, then answers each request, one at a time:
//   { kind: 'direct', jobs, concurrency, bytes, dir } → { seconds }
//     `jobs` engine calls of a WAV of `bytes` bytes (written once under `dir`) through the service's
//     own EngineClient straight to the engine (the baseline: no upload, no queue);
//   { kind: 'submit', url, jobs, concurrency, bytes, fields, statsUrl, finished } → { seconds }
//     `jobs` multipart POSTs of a WAV of `bytes` bytes to `url`, `concurrency` at once, each
//     answering 200; then GET `statsUrl` (the queue's /queue/stats) every 20 ms until it counts
//     `finished` finished jobs (any failed one is an error); `seconds` runs until then;
//   { kind: 'upload', url, bytes } → { seconds }
//     one multipart POST of a file of `bytes` bytes generated on the fly (never held in memory);
// or `{ error }`. The engine (OpenAI protocol) drains each upload and answers at once.

import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { EngineClient } from '../src/engines/engine-client';
import { wavHeader } from '@platform/testing';

export type LoadRequest =
  | { kind: 'direct'; jobs: number; concurrency: number; bytes: number; dir: string }
  | { kind: 'submit'; url: string; jobs: number; concurrency: number; bytes: number; fields: Record<string, string>; statsUrl: string; finished: number }
  | { kind: 'upload'; url: string; bytes: number };

export type LoadAnswer = { seconds: number } | { error: string };

/** Posts a multipart body with a `file` of `size` bytes (a WAV header, then zeros) generated on the fly. */
function postMultipart(url: string, size: number, fields: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const boundary = `----bench${randomUUID()}`;
  const fieldParts = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const pre = Buffer.from(`${fieldParts}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  const head = wavHeader(size - 44);
  const chunk = Buffer.alloc(Math.min(256 * 1024, size));
  function* parts(): Generator<Buffer> {
    yield pre;
    yield head;
    for (let left = size - head.length; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
    yield post;
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': pre.length + size + post.length } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    Readable.from(parts()).pipe(req);
  });
}

async function inParallel(total: number, concurrency: number, task: () => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) {
        next++;
        await task();
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

let engineUrl = '';

async function answer(req: LoadRequest): Promise<LoadAnswer> {
  switch (req.kind) {
    case 'direct': {
      const filePath = join(req.dir, 'direct.wav');
      await writeFile(filePath, Buffer.concat([wavHeader(req.bytes - 44), Buffer.alloc(req.bytes - 44)]));
      const client = new EngineClient({ engine: 'faster-whisper', baseUrl: engineUrl, model: 'whisper-1', timeoutMs: 60_000, attempts: 1, retryBaseMs: 0 });
      try {
        const seconds = await inParallel(req.jobs, req.concurrency, async () => {
          await client.transcribe({ path: filePath, filename: 'direct.wav', mediaType: 'audio/wav' });
        });
        return { seconds };
      } finally {
        await client.close();
      }
    }
    case 'submit': {
      const started = performance.now();
      await inParallel(req.jobs, req.concurrency, async () => {
        const res = await postMultipart(req.url, req.bytes, req.fields);
        if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${res.body}`);
      });
      for (;;) {
        const stats = (await (await fetch(req.statsUrl)).json()) as { finished: number; failed: number };
        if (stats.failed > 0) throw new Error(`benchmark jobs failed: ${JSON.stringify(stats)}`);
        if (stats.finished >= req.finished) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      return { seconds: (performance.now() - started) / 1000 };
    }
    case 'upload': {
      const started = performance.now();
      const res = await postMultipart(req.url, req.bytes);
      if (res.status < 200 || res.status >= 300) throw new Error(`upload answered ${res.status}: ${res.body}`);
      return { seconds: (performance.now() - started) / 1000 };
    }
  }
}

const engine = createServer((req, res) => {
  if (req.method === 'GET') {
    res.end('{"status":"ok"}');
    return;
  }
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ text: 'benchmark', language: 'en', duration: 1, segments: [{ id: 0, start: 0, end: 1, text: 'benchmark' }] }));
  });
});
engine.keepAliveTimeout = 60_000;
engine.listen(0, '127.0.0.1', () => {
  engineUrl = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
  process.send!({ ready: true, engineUrl });
});

let chain = Promise.resolve();
process.on('message', (req: LoadRequest) => {
  chain = chain.then(() =>
    answer(req).then(
      (a) => void process.send!(a),
      (err: unknown) => void process.send!({ error: err instanceof Error ? err.message : String(err) }),
    ),
  );
});
process.on('disconnect', () => process.exit(0));
