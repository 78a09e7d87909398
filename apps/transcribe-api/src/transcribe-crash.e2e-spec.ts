/**
 * The built service (`dist/apps/transcribe-api/main.js`, role `all`: API and workers in one
 * process, as a single replica runs) killed with SIGKILL in the middle of a transcription, then
 * started again: the job is taken over and ends exactly once — one engine call that completed, one
 * result, one `transcribe.job_finished` in the outbox, nothing left started or queued.
 */
import { buildForTest, createTestDatabase, databaseEnv, deleteKeysByPrefix, freePort, makeWav, spawnBuiltApp, startFakeTranscriptionEngine, testServices, uniqueSuffix, type FakeTranscriptionEngine, type SpawnedApp, type TestDatabase } from '@platform/testing';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

const { redisUrl } = testServices();

async function until<T>(probe: () => T | Promise<T>, what: string): Promise<NonNullable<T>> {
  for (let i = 0; i < 1200; i++) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// A queue that survives its process needs Redis (CI always has it; the in-memory queue ends with its process).
(redisUrl ? describe : describe.skip)('transcribe-api killed with SIGKILL mid-job (built service, BullMQ on Redis)', () => {
  const prefix = `crash-${uniqueSuffix()}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'transcribe-crash-'));
  const children: SpawnedApp[] = [];
  let engine: FakeTranscriptionEngine;
  let database: TestDatabase;
  let pg: Client;

  beforeAll(async () => {
    await buildForTest('transcribe-api');
    engine = await startFakeTranscriptionEngine();
    database = await createTestDatabase();
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  });

  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await pg?.end();
    await database?.drop();
    await engine?.close();
    await deleteKeysByPrefix(redisUrl!, `${prefix}:`, [0, 1]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The service on `port`, on the test's Redis prefix, database and data directory; resolves once /healthz answers. */
  async function start(port: number): Promise<SpawnedApp> {
    const app = await spawnBuiltApp(
      'transcribe-api',
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATA_DIR: dataDir,
        ...databaseEnv(database),
        AMQP_URL: '',
        REDIS_URL: redisUrl!,
        TRANSCRIBE_QUEUE_PREFIX: prefix,
        FASTER_WHISPER_URL: engine.url,
        // a dead worker's lock lapses after 1 s and the next worker looks for such jobs every second
        TRANSCRIBE_LOCK_DURATION_MS: '1000',
        TRANSCRIBE_STALLED_INTERVAL_MS: '1000',
      },
      { port },
    );
    children.push(app);
    return app;
  }

  it('takes the job over after a restart and ends it exactly once', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const json = async (path: string) => (await fetch(`${url}${path}`)).json() as Promise<Record<string, any>>;
    engine.delay(60_000); // a slow engine: the first call is still running when the service dies

    const first = await start(port);
    const form = new FormData();
    form.append('file', new Blob([makeWav({ seconds: 0.5 })], { type: 'audio/wav' }), 'interview.wav');
    const submitted = await fetch(`${url}/transcribe/async`, { method: 'POST', body: form });
    expect(submitted.status).toBe(200);
    const jobId = ((await submitted.json()) as { job_id: string }).job_id;
    await until(() => engine.inFlight === 1, 'the worker to call the engine');
    expect(await json(`/transcribe/status/${jobId}`)).toMatchObject({ status: 'started', attempts: 1 });

    await first.kill('SIGKILL');
    await until(() => engine.aborted.length === 1, 'the engine to see its caller gone');
    engine.delay(0);
    engine.respondWith({ text: 'transcribed after the restart' });

    await start(port);
    const done = await until(async () => {
      const job = await json(`/transcribe/status/${jobId}`);
      return job.status === 'started' || job.status === 'queued' ? null : job;
    }, 'the job to end');
    expect(done).toMatchObject({ status: 'finished', attempts: 2, error: null, result: { text: 'transcribed after the restart' } });

    // One engine call completed: two were made, the first one cut off by the kill.
    expect(engine.requests).toHaveLength(2);
    expect(engine.aborted).toHaveLength(1);
    expect(engine.inFlight).toBe(0);
    // One result stored, nothing left running or waiting.
    expect(await json('/queue/stats')).toMatchObject({ queued: 0, started: 0, finished: 1, failed: 0 });
    const jobs = await json('/transcribe/jobs');
    expect(jobs.jobs.map((j: { job_id: string; status: string }) => [j.job_id, j.status])).toEqual([[jobId, 'finished']]);
    // One transcribe.job_finished recorded, and the upload removed.
    const schema = database.schema ?? 'transcribe';
    const events = await pg.query(`SELECT event_id, data FROM ${schema}.outbox WHERE type = 'transcribe.job_finished'`);
    expect(events.rows).toEqual([expect.objectContaining({ event_id: jobId, data: expect.objectContaining({ jobId, status: 'finished' }) })]);
    expect(readdirSync(join(dataDir, 'transcribe', 'uploads'))).toEqual([]);
  });
});
