/**
 * transcribe-api benchmark scenarios for `npm run bench` (tools/bench.ts), each against a baseline
 * measured in the same run on loopback:
 *
 *  - `transcribe-api: queue jobs/s (faster-whisper)` and `(whisper)` — async jobs pushed through
 *    POST /transcribe/async, each queue and its workers to a fast engine (answers at once), until all
 *    are finished; baseline: the same number of direct engine calls with the same concurrency (no
 *    upload, no queue). Goal ≥ 0.5×.
 *  - `transcribe-api: subtitles of a 3-hour transcript` — SRT and VTT rendering (wrapping, splitting
 *    at word timings) of 2,700 segments with 32,400 words; baseline: JSON.stringify of the same
 *    transcript (what the `json` answer costs). Goal < 50 ms.
 *  - `transcribe-api: upload MB/s` — one large file streamed to POST /transcribe/async (multipart
 *    parse, content sniffing, write to disk); baseline: the same bytes posted to a bare Node HTTP
 *    server that discards them.
 *
 * Uses the in-memory queue unless REDIS_URL is set (then BullMQ on Redis, under a throwaway prefix).
 */
import { startService } from '@platform/platform';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { deleteKeysByPrefix } from '@platform/testing';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { EngineClient } from '../src/engines/engine-client';
import { toSrt, toVtt } from '../src/formats/subtitles';
import type { EngineName, TranscriptionSegment, TranscriptionWord } from '../src/jobs/job-record';
import { transcribeApiService } from '../src/service';
import { dropBenchSchema, listenOnLoopback as listen, type BenchMeasurement } from '@platform/bench';

export interface TranscribeBenchOptions {
  /** jobs pushed through the queue (default 300) */
  jobs?: number;
  /** worker concurrency per queue and client concurrency (default 8) */
  concurrency?: number;
  /** size of the upload scenario's file in MiB (default 200) */
  uploadMiB?: number;
  /** Redis for the BullMQ adapter; default process.env.REDIS_URL, in-memory when unset */
  redisUrl?: string;
  /** PostgreSQL for the outbox; default process.env.DATABASE_URL, embedded when unset */
  databaseUrl?: string;
}

/** A 16 kHz mono 16-bit WAV of `bytes` total size (silence). */
function wavHeader(totalBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(Math.min(totalBytes - 8, 0xffffffff), 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(16_000, 24);
  h.writeUInt32LE(32_000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(Math.min(totalBytes - 44, 0xffffffff), 40);
  return h;
}

/** An OpenAI-compatible engine that drains the upload and answers at once. */
async function startFastEngine(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
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
  return listen(server);
}

/** A bare Node server that discards request bodies (the upload baseline). */
async function startSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  return listen(server);
}

/** Posts a multipart body with a `file` of `size` bytes generated on the fly; resolves with the status and body. */
function postMultipart(url: string, size: number, head: Buffer, filename = 'bench.wav', fields: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const boundary = `----bench${randomUUID()}`;
  const fieldParts = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const pre = Buffer.from(`${fieldParts}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: audio/wav\r\n\r\n`);
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(256 * 1024);
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

async function getJson(url: string): Promise<any> {
  const res = await fetch(url);
  return res.json();
}

async function inParallel(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

export async function runTranscribeBench(opts: TranscribeBenchOptions = {}): Promise<BenchMeasurement[]> {
  const jobs = opts.jobs ?? 300;
  const concurrency = opts.concurrency ?? 8;
  const uploadBytes = (opts.uploadMiB ?? 200) * 1024 * 1024;
  const redisUrl = opts.redisUrl ?? process.env.REDIS_URL;
  // The outbox of transcribe.job_finished: DATABASE_URL when set (a throwaway schema), else embedded.
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const schema = prefix.replace('-', '_');
  const engine = await startFastEngine();
  const sink = await startSink();
  const dataDir = await mkdtemp(join(tmpdir(), 'transcribe-bench-'));
  const service = await startService(transcribeApiService, {
    port: 0,
    logger: false,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      FASTER_WHISPER_URL: engine.url,
      WHISPER_URL: engine.url,
      TRANSCRIBE_WORKER_CONCURRENCY: String(concurrency),
      TRANSCRIBE_QUEUE_PREFIX: prefix,
      ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
    },
  });
  const backend = redisUrl ? 'BullMQ on Redis' : 'in-memory queue';
  const results: BenchMeasurement[] = [];
  try {
    const wav = Buffer.concat([wavHeader(32_044), Buffer.alloc(32_000)]); // 1 s of silence

    // Baseline 1: direct engine calls, same concurrency.
    const direct = new EngineClient({ engine: 'faster-whisper', baseUrl: engine.url, model: 'whisper-1', timeoutMs: 60_000, attempts: 1, retryBaseMs: 0 });
    const filePath = join(dataDir, 'direct.wav');
    await writeFile(filePath, wav);
    let t0 = performance.now();
    await inParallel(jobs, concurrency, async () => {
      await direct.transcribe({ path: filePath, filename: 'direct.wav', mediaType: 'audio/wav' });
    });
    const directPerSecond = jobs / ((performance.now() - t0) / 1000);
    await direct.close();

    // Scenario 1: jobs through upload + queue + worker, per queue.
    for (const engineName of ['faster-whisper', 'whisper'] as EngineName[]) {
      const finished = async () => ((await getJson(`${service.url}/queue/stats?engine=${engineName}`)) as { finished: number; failed: number });
      const before = (await finished()).finished;
      t0 = performance.now();
      await inParallel(jobs, concurrency, async () => {
        const res = await postMultipart(`${service.url}/transcribe/async`, wav.length, wav, 'bench.wav', { engine: engineName });
        if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${res.body}`);
      });
      for (;;) {
        const stats = await finished();
        if (stats.finished - before >= jobs) break;
        if (stats.failed > 0) throw new Error(`benchmark jobs failed: ${JSON.stringify(stats)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const queuedPerSecond = jobs / ((performance.now() - t0) / 1000);
      results.push({
        name: `transcribe-api: queue jobs/s (${engineName})`,
        value: round(queuedPerSecond),
        unit: 'jobs/s',
        baseline: round(directPerSecond),
        ratio: round(queuedPerSecond / directPerSecond, 3),
        detail: `${jobs} async jobs (1 s WAV each, ${backend}, ${concurrency} workers) vs direct engine calls; goal ≥ 0.5×`,
      });
    }

    // Baseline 2: the same upload to a bare server.
    const head = wavHeader(uploadBytes);
    t0 = performance.now();
    await postMultipart(sink.url, uploadBytes, head);
    const sinkMBs = uploadBytes / 1048576 / ((performance.now() - t0) / 1000);

    // Scenario 2: upload to disk (multipart + sniffing + write) and enqueue.
    t0 = performance.now();
    const res = await postMultipart(`${service.url}/transcribe/async`, uploadBytes, head, 'large.wav');
    const uploadMBs = uploadBytes / 1048576 / ((performance.now() - t0) / 1000);
    if (res.status !== 200) throw new Error(`large upload answered ${res.status}: ${res.body}`);
    results.push({
      name: 'transcribe-api: upload MB/s',
      value: round(uploadMBs),
      unit: 'MB/s',
      baseline: round(sinkMBs),
      ratio: round(uploadMBs / sinkMBs, 3),
      detail: `one ${uploadBytes / 1048576} MiB file streamed to disk vs a bare Node server discarding it`,
    });

    results.push(subtitleRendering());
  } finally {
    await service.close();
    await engine.close();
    await sink.close();
    await rm(dataDir, { recursive: true, force: true });
    if (redisUrl) await dropPrefix(redisUrl, prefix);
    if (databaseUrl) await dropBenchSchema(databaseUrl, schema);
  }
  return results;
}

/** A 3-hour transcript: 2,700 segments of 4 s, 12 words each, with word timings. */
export function threeHourTranscript(): { segments: TranscriptionSegment[]; words: TranscriptionWord[] } {
  const segments: TranscriptionSegment[] = [];
  const words: TranscriptionWord[] = [];
  for (let i = 0; i < 2700; i++) {
    const start = i * 4;
    const segWords = Array.from({ length: 12 }, (_, j) => ({ word: ` word${(i * 12 + j) % 997}`, start: start + j / 3, end: start + (j + 1) / 3 }));
    words.push(...segWords);
    segments.push({ id: i, start, end: start + 4, text: segWords.map((w) => w.word).join(''), avg_logprob: -0.2, no_speech_prob: 0.01 });
  }
  return { segments, words };
}

/** SRT + VTT of a 3-hour transcript vs JSON.stringify of it; the median of 7 runs each. */
function subtitleRendering(): BenchMeasurement {
  const { segments, words } = threeHourTranscript();
  const median = (fn: () => unknown): number => {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      fn();
      times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b)[3];
  };
  const render = median(() => {
    toSrt(segments, undefined, words);
    toVtt(segments, undefined, words);
  });
  const stringify = median(() => JSON.stringify({ segments, words }));
  return {
    name: 'transcribe-api: subtitles of a 3-hour transcript',
    value: round(render, 2),
    unit: 'ms',
    baseline: round(stringify, 2),
    ratio: round(render / stringify, 3),
    detail: `SRT + VTT of ${segments.length} segments / ${words.length} words (42-character lines, split at word timings) vs JSON.stringify of the transcript; goal < 50 ms`,
  };
}

/** Removes the keys under `prefix` from both queue databases (0 and 1). */
const dropPrefix = (url: string, prefix: string) => deleteKeysByPrefix(url, `${prefix}:`, [0, 1]);

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

if (require.main === module) {
  runTranscribeBench().then(
    (r) => console.table(r),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
