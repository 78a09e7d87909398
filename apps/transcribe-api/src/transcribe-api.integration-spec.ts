import { createTestApp, deleteKeysByPrefix, makeWav, startFakeTranscriptionEngine, testServices, uniqueSuffix, type FakeTranscriptionEngine, type TestApp } from '@platform/testing';
import { EventBus, TranscribeJobFinished, type EventEnvelope, type TranscribeJobFinishedData } from '@platform/messaging';
import { redisOptions } from '@platform/rate-limit';
import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { killHard, startWorkerProcess } from '../test/worker-process';
import type { TranscribeConfig } from './config';
import { QUEUES } from './transcription/job-record';
import { transcribeApiService } from './service';

const { redisUrl } = testServices();

async function waitForEnd(t: TestApp<TranscribeConfig>, jobId: string, attempts = 600): Promise<Record<string, any>> {
  for (let i = 0; i < attempts; i++) {
    const res = await t.http.get(`/transcribe/status/${jobId}`).expect(200);
    if (res.body.status === 'finished' || res.body.status === 'failed') return res.body;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not end`);
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Removes the keys under `prefix` from both queue databases (0 and 1). */
const dropPrefix = (url: string, prefix: string) => deleteKeysByPrefix(url, `${prefix}:`, [0, 1]);

// The global test setup found Redis or not (CI always has it); each case has its own assertions.
if (!redisUrl) {
  describe('transcribe-api without Redis', () => {
    it('falls back to the in-memory queue (the BullMQ cases need Redis: start it or set TEST_REDIS_URL)', async () => {
      const t = await createTestApp(transcribeApiService, {});
      try {
        expect((await t.http.get('/').expect(200)).body.queue_backend).toBe('in-memory');
        expect((await t.http.get('/health').expect(200)).body.redis).toBe('in-memory');
      } finally {
        await t.close();
      }
    });
  });
}

if (redisUrl) describe('transcribe-api on Redis (BullMQ queues)', () => {
  const wav = makeWav({ seconds: 0.25 });
  let engine: FakeTranscriptionEngine;

  beforeAll(async () => {
    engine = await startFakeTranscriptionEngine();
  });
  afterAll(async () => {
    await engine?.close();
  });
  beforeEach(() => engine.reset());

  describe('API and workers in one process', () => {
    const prefix = `test-${uniqueSuffix()}`;
    let t: TestApp<TranscribeConfig>;

    beforeAll(async () => {
      t = await createTestApp(transcribeApiService, {
        REDIS_URL: redisUrl,
        TRANSCRIBE_QUEUE_PREFIX: prefix,
        REDIS_KEY_PREFIX: `${prefix}:app:`, // the engines' shared bound, apart from other suites'
        FASTER_WHISPER_URL: engine.url,
        WHISPER_URL: 'http://127.0.0.1:1',
        TRANSCRIBE_ENGINE_ATTEMPTS: '2',
        TRANSCRIBE_ENGINE_RETRY_BASE_MS: '10',
      });
    });
    afterAll(async () => {
      await t?.close();
      await dropPrefix(redisUrl!, prefix);
    });

    it('reports Redis connected in /health and readiness', async () => {
      expect((await t.http.get('/health').expect(200)).body).toMatchObject({ redis: 'connected', faster_whisper: 'healthy', whisper: 'unhealthy' });
      expect((await t.http.get('/readyz').expect(200)).body.checks.redis).toEqual({ status: 'up' });
      expect((await t.http.get('/').expect(200)).body.queue_backend).toBe('redis');
    });

    it('transcribes synchronously', async () => {
      engine.respondWith({ text: 'sync on redis', language: 'en' });
      const res = await t.http.post('/transcribe').attach('file', wav, 's.wav').expect(200);
      expect(res.body).toMatchObject({ text: 'sync on redis', engine: 'faster-whisper' });
    });

    it('runs an async job to finished, keeping the record in the queue database of its engine', async () => {
      engine.respondWith({ text: 'from the queue', language: 'de', duration: 0.25 });
      const submit = await t.http.post('/transcribe/async').field('language', 'de').attach('file', wav, 'a.wav').expect(200);
      expect(submit.body).toMatchObject({ status: 'queued', queue_name: 'faster-whisper-transcription', queue_position: expect.any(Number) });
      const done = await waitForEnd(t, submit.body.job_id);
      expect(done).toMatchObject({ status: 'finished', language: 'de', audio_duration: 0.25, attempts: 1, result: { text: 'from the queue' } });
      expect(Date.parse(done.started_at)).toBeLessThanOrEqual(Date.parse(done.ended_at));

      const db1 = new Redis(redisUrl!, { db: 1 });
      const db0 = new Redis(redisUrl!, { db: 0 });
      try {
        expect(await db1.exists(`${prefix}:faster-whisper-transcription:${submit.body.job_id}`)).toBe(1);
        expect(await db0.exists(`${prefix}:faster-whisper-transcription:${submit.body.job_id}`)).toBe(0);
      } finally {
        db1.disconnect();
        db0.disconnect();
      }
    });

    it('fails an async job whose engine is down, with the reason', async () => {
      const submit = await t.http.post('/transcribe/async').field('engine', 'whisper').attach('file', wav, 'b.wav').expect(200);
      expect(submit.body.queue_name).toBe('transcription');
      const done = await waitForEnd(t, submit.body.job_id);
      expect(done).toMatchObject({ status: 'failed', result: null, error: expect.stringMatching(/unreachable/) });
    });

    it('answers 404 for an unknown job', async () => {
      await t.http.get('/transcribe/status/0b0c4a5e-1111-4222-8333-444455556666').expect(404);
    });

    it('moves the queue counters as jobs run', async () => {
      const before = (await t.http.get('/queue/stats').expect(200)).body;
      expect(before).toMatchObject({ queue_name: 'faster-whisper-transcription', queued: 0, started: 0, workers: 1 });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      engine.respondWith(async () => {
        await gate;
        return { text: 'held' };
      });
      const first = await t.http.post('/transcribe/async').attach('file', wav, '1.wav').expect(200);
      await until(() => engine.requests.length === 1, 'the first job to reach the engine');
      const second = await t.http.post('/transcribe/async').attach('file', wav, '2.wav').expect(200);
      const third = await t.http.post('/transcribe/async').attach('file', wav, '3.wav').expect(200);
      expect(second.body.queue_position).toBe(0);
      expect(third.body.queue_position).toBe(1);
      expect((await t.http.get(`/transcribe/status/${third.body.job_id}`).expect(200)).body).toMatchObject({ status: 'queued', queue_position: 1 });
      expect((await t.http.get('/queue/stats').expect(200)).body).toMatchObject({ queued: 2, started: 1 });
      expect((await t.http.get(`/transcribe/status/${second.body.job_id}`).expect(200)).body).toMatchObject({ status: 'queued', queue_position: 0 });
      release();
      expect((await waitForEnd(t, first.body.job_id)).status).toBe('finished');
      expect((await waitForEnd(t, second.body.job_id)).status).toBe('finished');
      expect((await waitForEnd(t, third.body.job_id)).status).toBe('finished');
      const after = (await t.http.get('/queue/stats').expect(200)).body;
      expect(after).toMatchObject({ queued: 0, started: 0, finished: before.finished + 3 });
      expect(after.queues.find((q: { queue_name: string }) => q.queue_name === 'transcription').failed).toBeGreaterThanOrEqual(1);
    });
  });

  describe('separate worker processes', () => {
    const prefix = `test-${uniqueSuffix()}`;
    let api: TestApp<TranscribeConfig>;
    const workerEnv = () => ({
      REDIS_URL: redisUrl!,
      TRANSCRIBE_QUEUE_PREFIX: prefix,
      FASTER_WHISPER_URL: engine.url,
      DATA_DIR: api.config.DATA_DIR,
      // the outbox of transcribe.job_finished: the api's throwaway database
      DATABASE_URL: api.config.DATABASE_URL!,
      DATABASE_SCHEMA: api.config.DATABASE_SCHEMA!,
      TRANSCRIBE_LOCK_DURATION_MS: '1000',
      TRANSCRIBE_STALLED_INTERVAL_MS: '1000',
    });
    /** The engine never answers the first call for each of these files, and answers `text` after. */
    const holdFirstCallOf = (files: string[], text: string) => {
      const held = new Promise<never>(() => undefined);
      engine.respondWith((req) => {
        const name = req.file?.filename ?? '';
        return files.includes(name) && engine.requests.filter((r) => r.file?.filename === name).length === 1 ? held : { text };
      });
    };
    const workers: Array<Awaited<ReturnType<typeof startWorkerProcess>>> = [];

    beforeAll(async () => {
      api = await createTestApp(transcribeApiService, {
        REDIS_URL: redisUrl,
        TRANSCRIBE_ROLE: 'api',
        TRANSCRIBE_QUEUE_PREFIX: prefix,
        FASTER_WHISPER_URL: engine.url,
      });
    });
    afterAll(async () => {
      for (const w of workers) await killHard(w.child);
      await api?.close();
      await dropPrefix(redisUrl!, prefix);
    });

    it('the api role only enqueues: without a worker the job stays queued', async () => {
      const submit = await api.http.post('/transcribe/async').attach('file', wav, 'wait.wav').expect(200);
      const stats = (await api.http.get('/queue/stats').expect(200)).body;
      expect(stats).toMatchObject({ workers: 0, queued: 1 });
      expect((await api.http.get(`/transcribe/status/${submit.body.job_id}`).expect(200)).body.status).toBe('queued');
      // picked up by the worker of the next test
    });

    it('a worker killed mid-job: another worker takes the job over and it finishes exactly once', async () => {
      holdFirstCallOf(['slow.wav'], 'done by the second worker');

      const submit = await api.http.post('/transcribe/async').attach('file', wav, 'slow.wav').expect(200);
      const jobId = submit.body.job_id as string;

      const first = await startWorkerProcess(workerEnv());
      workers.push(first);
      await until(() => engine.requests.some((r) => r.file?.filename === 'slow.wav'), 'the first worker to call the engine');
      expect((await api.http.get(`/transcribe/status/${jobId}`).expect(200)).body).toMatchObject({ status: 'started', attempts: 1 });

      await killHard(first.child); // kill -9 in the middle of the engine call

      const second = await startWorkerProcess(workerEnv());
      workers.push(second);
      const done = await waitForEnd(api, jobId, 1200);
      expect(done).toMatchObject({ status: 'finished', attempts: 2, result: { text: 'done by the second worker' } });
      expect(engine.requests.filter((r) => r.file?.filename === 'slow.wav')).toHaveLength(2);

      const stats = (await api.http.get('/queue/stats').expect(200)).body;
      expect(stats).toMatchObject({ queued: 0, started: 0, failed: 0 });
      // 'wait.wav' from the previous test and 'slow.wav' each completed once
      expect(stats.finished).toBe(2);
      expect(stats.workers).toBe(1);
    });

    it('a worker stopped with SIGTERM mid-job hands the job back at once instead of failing it', async () => {
      const running = workers[workers.length - 1]; // the second worker of the previous test
      holdFirstCallOf(['graceful.wav'], 'done after a clean handover');
      const submit = await api.http.post('/transcribe/async').attach('file', wav, 'graceful.wav').expect(200);
      const jobId = submit.body.job_id as string;
      await until(() => engine.requests.some((r) => r.file?.filename === 'graceful.wav'), 'the worker to call the engine');

      const exited = new Promise<number | null>((resolve) => running.child.once('exit', (code) => resolve(code)));
      running.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const handedBack = (await api.http.get(`/transcribe/status/${jobId}`).expect(200)).body;
      expect(handedBack).toMatchObject({ status: 'queued', error: null });
      expect((await api.http.get('/queue/stats').expect(200)).body.failed).toBe(0);

      const next = await startWorkerProcess(workerEnv());
      workers.push(next);
      const done = await waitForEnd(api, jobId, 1200);
      expect(done).toMatchObject({ status: 'finished', result: { text: 'done after a clean handover' } });
      expect((await api.http.get('/queue/stats').expect(200)).body).toMatchObject({ failed: 0, finished: 3 });
    });
  });
  describe('a job whose worker dies more often than allowed', () => {
    const prefix = `test-${uniqueSuffix()}`;
    const apps: TestApp<TranscribeConfig>[] = [];
    let dead: Worker | undefined;
    afterAll(async () => {
      await dead?.close(true);
      for (const app of apps) await app.close();
      await dropPrefix(redisUrl!, prefix);
    });

    it('ends failed with a clear error, its upload removed and transcribe.job_finished published', async () => {
      const api = await createTestApp(transcribeApiService, { REDIS_URL: redisUrl, TRANSCRIBE_ROLE: 'api', TRANSCRIBE_QUEUE_PREFIX: prefix, FASTER_WHISPER_URL: engine.url });
      apps.push(api);
      const submit = await api.http.post('/transcribe/async').attach('file', wav, 'doomed.wav').expect(200);
      const jobId = submit.body.job_id as string;
      const uploadDir = join(api.config.DATA_DIR, 'transcribe', 'uploads');
      expect(await readdir(uploadDir)).toHaveLength(1);

      // A worker that takes the job and dies at once: its lock is never renewed.
      dead = new Worker(QUEUES['faster-whisper'].queueName, null, {
        connection: redisOptions(redisUrl!, { db: QUEUES['faster-whisper'].redisDb, maxRetriesPerRequest: null }),
        prefix,
        lockDuration: 1000,
        autorun: false,
      });
      expect((await dead.getNextJob('dead-worker'))?.id).toBe(jobId);
      await dead.close(true);
      expect((await api.http.get(`/transcribe/status/${jobId}`).expect(200)).body.status).toBe('started');

      // No take-over allowed: the next worker fails the job without running it.
      const worker = await createTestApp(transcribeApiService, {
        REDIS_URL: redisUrl,
        TRANSCRIBE_ROLE: 'worker',
        TRANSCRIBE_QUEUE_PREFIX: prefix,
        FASTER_WHISPER_URL: engine.url,
        DATA_DIR: api.config.DATA_DIR,
        TRANSCRIBE_MAX_STALLED_COUNT: '0',
        TRANSCRIBE_LOCK_DURATION_MS: '1000',
        TRANSCRIBE_STALLED_INTERVAL_MS: '1000',
      });
      apps.push(worker);
      const events: EventEnvelope<TranscribeJobFinishedData>[] = [];
      await worker.app.get(EventBus).subscribe(`transcribe-abandoned-${uniqueSuffix()}`, [TranscribeJobFinished], async (e) => {
        events.push(e);
      });

      const done = await waitForEnd(api, jobId, 1200);
      expect(done).toMatchObject({ status: 'failed', result: null, error: expect.stringMatching(/worker running this job stopped \(crashed or was killed\)/) });
      expect(engine.requests.filter((r) => r.file?.filename === 'doomed.wav')).toHaveLength(0);
      await until(async () => (await readdir(uploadDir)).length === 0, 'the upload to be removed');
      await until(() => events.length === 1, 'transcribe.job_finished');
      expect(events[0]).toMatchObject({ id: jobId, data: { jobId, status: 'failed', textLength: 0, error: expect.stringMatching(/TRANSCRIBE_MAX_STALLED_COUNT/) } });
    });
  });
});
