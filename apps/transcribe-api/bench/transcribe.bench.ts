/**
 * transcribe-api benchmark scenarios for `npm run bench` (tools/bench.ts), each against a baseline
 * measured in the same run on loopback:
 *
 *  - `transcribe-api: queue jobs/s (faster-whisper)` and `(whisper)` — async jobs pushed through
 *    POST /transcribe/async, each queue and its workers to a fast engine (answers at once), until all
 *    are finished; baseline: the same number of direct engine calls with the same concurrency (no
 *    upload, no queue). Both warmed up first with a tenth as many, untimed. Goal ≥ 0.5×.
 *  - `transcribe-api: subtitles of a 3-hour transcript` — SRT and VTT rendering (wrapping, splitting
 *    at word timings) of 2,700 segments with 32,400 words; baseline: JSON.stringify of the same
 *    transcript (what the `json` answer costs). Goal < 50 ms.
 *  - `transcribe-api: upload MB/s` — one large file streamed to POST /transcribe/async (multipart
 *    parse, content sniffing, write to disk); baseline: the same bytes posted to a bare Node HTTP
 *    server that discards them.
 *
 * The clients and the fake engine run in a process of their own (./load-process), the service in
 * this one: the service shares its event loop with neither. With REDIS_URL set the service runs as
 * deployed (deploy/k8s/base/transcribe-api): this process is the API (TRANSCRIBE_ROLE=api) and a
 * second process, the built app, the workers (TRANSCRIBE_ROLE=worker), sharing BullMQ on Redis under
 * a throwaway prefix, DATA_DIR and the database; without it, one process with the in-memory queue
 * (TRANSCRIBE_ROLE=all, the embedded default).
 */
import { startService } from '@platform/platform';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { deleteKeysByPrefix, spawnBuiltApp } from '@platform/testing';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadAnswer, LoadRequest } from './load-process';
import { toSrt, toVtt } from '../src/formats/subtitles';
import type { EngineName, TranscriptionSegment, TranscriptionWord } from '../src/transcription/job-record';
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

/** A bare Node server that discards request bodies (the upload baseline). */
async function startSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  return listen(server);
}

async function getJson(url: string): Promise<any> {
  const res = await fetch(url);
  return res.json();
}

/** The load generator and the engine in a process of their own (./load-process), driven over IPC, one request at a time. */
async function startLoadProcess(): Promise<{ engineUrl: string; run(req: LoadRequest): Promise<number>; close(): Promise<void> }> {
  const child = fork(join(__dirname, 'load-process.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const [ready] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(() => Promise.reject(new Error('the load process exited')))])) as [{ engineUrl: string }];
  return {
    engineUrl: ready.engineUrl,
    async run(req) {
      child.send(req);
      const [answer] = (await once(child, 'message')) as [LoadAnswer];
      if ('error' in answer) throw new Error(`load process: ${answer.error}`);
      return answer.seconds;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}

export async function runTranscribeBench(opts: TranscribeBenchOptions = {}): Promise<BenchMeasurement[]> {
  const jobs = opts.jobs ?? 300;
  const concurrency = opts.concurrency ?? 8;
  const uploadBytes = (opts.uploadMiB ?? 200) * 1024 * 1024;
  const redisUrl = opts.redisUrl ?? process.env.REDIS_URL;
  // The outbox of transcribe.job_finished: DATABASE_URL when set (a throwaway schema), else embedded.
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  // First, on a machine nothing else of the bench uses yet (the workers' process and the load
  // process would take CPU from it later: the 200 MiB upload's job runs after its answer).
  const subtitles = subtitleRendering();
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const schema = prefix.replace('-', '_');
  const load = await startLoadProcess();
  const sink = await startSink();
  const dataDir = await mkdtemp(join(tmpdir(), 'transcribe-bench-'));
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    FASTER_WHISPER_URL: load.engineUrl,
    WHISPER_URL: load.engineUrl,
    TRANSCRIBE_WORKER_CONCURRENCY: String(concurrency),
    TRANSCRIBE_QUEUE_PREFIX: prefix,
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
  };
  const service = await startService(transcribeApiService, { port: 0, logger: false, env: { ...env, TRANSCRIBE_ROLE: redisUrl ? 'api' : 'all' } });
  const workers = redisUrl ? await spawnBuiltApp('transcribe-api', { ...env, TRANSCRIBE_ROLE: 'worker' }, { inherit: false }).catch(async (err: unknown) => {
    await service.close();
    throw err;
  }) : null;
  const backend = redisUrl ? `BullMQ on Redis, API and ${concurrency} workers per queue in two processes` : `in-memory queue, ${concurrency} workers per queue in the API's process`;
  const results: BenchMeasurement[] = [];
  try {
    const wavBytes = 32_044; // 1 s of silence

    // Both sides warmed up first (compiled code, connection pools), a tenth of the jobs each, untimed.
    const warmup = Math.max(1, Math.round(jobs / 10));
    const direct = (n: number) => load.run({ kind: 'direct', jobs: n, concurrency, bytes: wavBytes, dir: dataDir });
    const queued = async (engineName: EngineName, n: number) => {
      const statsUrl = `${service.url}/queue/stats?engine=${engineName}`;
      const before = ((await getJson(statsUrl)) as { finished: number }).finished;
      return load.run({ kind: 'submit', url: `${service.url}/transcribe/async`, jobs: n, concurrency, bytes: wavBytes, fields: { engine: engineName }, statsUrl, finished: before + n });
    };
    await direct(warmup);
    for (const engineName of ['faster-whisper', 'whisper'] as EngineName[]) await queued(engineName, warmup);

    // Baseline 1: direct engine calls from the load process, same concurrency.
    const directPerSecond = jobs / (await direct(jobs));

    // Scenario 1: jobs through upload + queue + worker, per queue.
    for (const engineName of ['faster-whisper', 'whisper'] as EngineName[]) {
      const queuedPerSecond = jobs / (await queued(engineName, jobs));
      results.push({
        name: `transcribe-api: queue jobs/s (${engineName})`,
        value: round(queuedPerSecond),
        unit: 'jobs/s',
        baseline: round(directPerSecond),
        ratio: round(queuedPerSecond / directPerSecond, 3),
        detail: `${jobs} async jobs (1 s WAV each, ${backend}) vs direct engine calls at the same concurrency; goal ≥ 0.5×`,
      });
    }

    // Baseline 2: the same upload to a bare server.
    const sinkMBs = uploadBytes / 1048576 / (await load.run({ kind: 'upload', url: sink.url, bytes: uploadBytes }));

    // Scenario 2: upload to disk (multipart + sniffing + write) and enqueue.
    const uploadMBs = uploadBytes / 1048576 / (await load.run({ kind: 'upload', url: `${service.url}/transcribe/async`, bytes: uploadBytes }));
    results.push({
      name: 'transcribe-api: upload MB/s',
      value: round(uploadMBs),
      unit: 'MB/s',
      baseline: round(sinkMBs),
      ratio: round(uploadMBs / sinkMBs, 3),
      detail: `one ${uploadBytes / 1048576} MiB file streamed to disk vs a bare Node server discarding it`,
    });

    results.push(subtitles);
  } finally {
    await workers?.kill('SIGTERM');
    await service.close();
    await load.close();
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
