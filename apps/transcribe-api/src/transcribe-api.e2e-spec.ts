import { EventBus, OutboxRelay, TranscribeJobFinished, type EventEnvelope } from '@platform/messaging';
import { createTestApp, type FakeTranscriptionEngine, garbageCollector, makeWav, startFakeTranscriptionEngine, type TestApp } from '@platform/testing';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { streamUpload, streamUploadRequest } from '../test/upload';
import { uploadDirOf as uploadDir } from './uploads/upload-dir';
import type { TranscribeConfig } from './config';
import { transcribeApiService } from './service';

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Polls the job until it leaves queued/started (bounded by attempts, not by time). */
async function waitForEnd(t: TestApp<TranscribeConfig>, jobId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 400; i++) {
    const res = await t.http.get(`/transcribe/status/${jobId}`).expect(200);
    if (res.body.status === 'finished' || res.body.status === 'failed') return res.body;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not end`);
}

describe('transcribe-api over HTTP (in-memory queue)', () => {
  let engine: FakeTranscriptionEngine;
  let t: TestApp<TranscribeConfig>;
  const wav = makeWav({ seconds: 0.5 });

  beforeAll(async () => {
    engine = await startFakeTranscriptionEngine();
    t = await createTestApp(transcribeApiService, {
      FASTER_WHISPER_URL: engine.url,
      WHISPER_URL: 'http://127.0.0.1:1', // nothing listens there: the "engine down" case
      TRANSCRIBE_ENGINE_ATTEMPTS: '2',
      TRANSCRIBE_ENGINE_RETRY_BASE_MS: '10',
    });
  });
  afterAll(async () => {
    await t?.close();
    await engine?.close();
  });
  beforeEach(() => engine.reset());

  const uploads = async () => readdir(uploadDir(t.config));
  /** Uploads are removed right after the answer is sent: wait (bounded by attempts) for the directory to empty. */
  const untilNoUploads = () => until(async () => (await uploads()).length === 0, 'the uploads to be removed');
  const listening = async (): Promise<AddressInfo> => {
    const server = t.app.getHttpServer();
    if (!server.listening) await t.app.listen(0, '127.0.0.1');
    return server.address() as AddressInfo;
  };

  it('GET / describes the service, its engines and queues', async () => {
    const res = await t.http.get('/').expect(200);
    expect(res.body).toMatchObject({ service: 'transcribe-api', version: expect.any(String), queue_backend: 'in-memory' });
    expect(res.body.queues).toEqual(['transcription', 'faster-whisper-transcription']);
    expect(res.body.engines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'whisper', queue_name: 'transcription', redis_db: 0, configured: true }),
        expect.objectContaining({ name: 'faster-whisper', queue_name: 'faster-whisper-transcription', redis_db: 1, default: true }),
      ]),
    );
  });

  it('GET /health probes the engines: the running one is healthy, the one down is not', async () => {
    const res = await t.http.get('/health').expect(200);
    expect(res.body).toMatchObject({ status: 'unhealthy', redis: 'in-memory', faster_whisper: 'healthy', whisper: 'unhealthy' });
  });

  it('serves the docs at /docs and /api/docs, with the error shape documented', async () => {
    await t.http.get('/docs').expect(200);
    await t.http.get('/api/docs').expect(200);
    const doc = await t.http.get('/api/docs-json').expect(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/', '/health', '/transcribe', '/transcribe/async', '/transcribe/status/{job_id}', '/queue/stats']),
    );
    expect(doc.body.paths['/transcribe'].post.responses['413']).toBeDefined();
    expect(doc.body.info.description).toMatch(/holds only the outbox/);
  });

  it('POST /transcribe answers with text, language, duration, segments, engine and processing time', async () => {
    engine.respondWith({ text: 'bonjour le monde', language: 'fr', duration: 0.5, segments: [{ id: 0, start: 0, end: 0.5, text: 'bonjour le monde' }] });
    const res = await t.http.post('/transcribe').field('language', 'fr').attach('file', wav, 'hello.wav').expect(200);
    expect(res.body).toMatchObject({
      text: 'bonjour le monde',
      language: 'fr',
      duration: 0.5,
      segments: [{ id: 0, start: 0, end: 0.5, text: 'bonjour le monde' }],
      engine: 'faster-whisper',
      processing_time: expect.any(Number),
      metadata: { filename: 'hello.wav', file_size: wav.length, media_type: 'audio/wav', task: 'transcribe', service: 'faster-whisper' },
    });
    // what the engine received: the same bytes and the OpenAI fields
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0].file?.data.equals(wav)).toBe(true);
    expect(engine.requests[0].fields).toMatchObject({ model: 'whisper-1', language: 'fr', response_format: 'verbose_json', 'timestamp_granularities[]': 'word' });
    expect(await uploads()).toEqual([]); // removed after the synchronous answer
  });

  it('POST /transcribe with the engine down answers 502 with a clear detail, and removes the upload', async () => {
    const res = await t.http.post('/transcribe').field('engine', 'whisper').attach('file', wav, 'a.wav').expect(502);
    expect(res.body.detail).toMatch(/unreachable/);
    expect(await uploads()).toEqual([]);
  });

  it('POST /transcribe/async queues a job that ends finished, with its result in the status record', async () => {
    engine.respondWith({ text: 'queued words', language: 'en' });
    const submit = await t.http.post('/transcribe/async').field('language', 'en').attach('file', wav, 'q.wav').expect(200);
    expect(submit.body).toMatchObject({
      job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'queued',
      message: expect.any(String),
      queue_position: expect.any(Number),
      estimated_wait: expect.any(Number),
      queue_name: 'faster-whisper-transcription',
    });
    const done = await waitForEnd(t, submit.body.job_id);
    expect(done).toMatchObject({
      job_id: submit.body.job_id,
      status: 'finished',
      engine: 'faster-whisper',
      filename: 'q.wav',
      file_size: wav.length,
      language: 'en',
      audio_duration: expect.any(Number),
      started_at: expect.any(String),
      ended_at: expect.any(String),
      error: null,
      result: { text: 'queued words', segments: expect.any(Array) },
    });
    expect(await uploads()).toEqual([]);
  });

  it('an async job on an engine that is down ends failed with the reason, and its upload is removed', async () => {
    const submit = await t.http.post('/transcribe/async').field('engine', 'whisper').attach('file', wav, 'd.wav').expect(200);
    expect(submit.body.queue_name).toBe('transcription');
    const done = await waitForEnd(t, submit.body.job_id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/engine whisper .* unreachable .* after 2 attempt/);
    expect(done.result).toBeNull();
    expect(await uploads()).toEqual([]);
  });

  it('publishes transcribe.job_finished with the job id, status, engine and text length', async () => {
    const seen: EventEnvelope<any>[] = [];
    await t.app.get(EventBus).subscribe(`transcribe-e2e-${Date.now()}`, [TranscribeJobFinished], async (e) => {
      seen.push(e);
    });
    engine.respondWith({ text: 'twelve chars' });
    const ok = await t.http.post('/transcribe/async').set('X-Request-Id', 'req-transcribe-e2e').attach('file', wav, 'ev.wav').expect(200);
    const bad = await t.http.post('/transcribe/async').field('engine', 'whisper').attach('file', wav, 'ev2.wav').expect(200);
    await waitForEnd(t, ok.body.job_id);
    await waitForEnd(t, bad.body.job_id);
    // Both events are in the outbox once their jobs ended: a relay pass publishes them now, rather
    // than at its next timer (later still on a loaded machine, or after a backoff).
    await t.app.get(OutboxRelay).flush();
    for (let i = 0; i < 1000 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const byJob = Object.fromEntries(seen.map((e) => [e.data.jobId, e]));
    expect(byJob[ok.body.job_id]).toMatchObject({
      id: ok.body.job_id,
      type: 'transcribe.job_finished',
      source: 'transcribe-api',
      correlationId: 'req-transcribe-e2e',
      data: { status: 'finished', engine: 'faster-whisper', queue: 'faster-whisper-transcription', textLength: 12, error: null },
    });
    expect(byJob[bad.body.job_id]).toMatchObject({ data: { status: 'failed', engine: 'whisper', textLength: 0, error: expect.stringMatching(/unreachable/) } });
  });

  it('GET /transcribe/status of an unknown job answers 404 {detail}', async () => {
    const res = await t.http.get('/transcribe/status/6f1d7c1e-0000-4000-8000-000000000000').expect(404);
    expect(res.body).toEqual({ detail: expect.stringMatching(/not found.*Use the job_id returned by POST \/transcribe\/async/) });
    await t.http.get('/transcribe/status/not-a-uuid').expect(404);
  });

  it('GET /queue/stats moves as jobs run', async () => {
    const before = (await t.http.get('/queue/stats').expect(200)).body;
    expect(before).toMatchObject({ queue_name: 'faster-whisper-transcription', queued: 0, started: 0, workers: 1 });
    expect(before.queues.map((q: { queue_name: string }) => q.queue_name)).toEqual(['transcription', 'faster-whisper-transcription']);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    engine.respondWith(async () => {
      await gate; // the engine holds every answer until the test releases it
      return { text: 'held' };
    });
    const first = await t.http.post('/transcribe/async').attach('file', wav, '1.wav').expect(200);
    for (let i = 0; i < 400 && engine.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const second = await t.http.post('/transcribe/async').attach('file', wav, '2.wav').expect(200);
    const third = await t.http.post('/transcribe/async').attach('file', wav, '3.wav').expect(200);
    // queue_position counts the jobs waiting ahead (0 = next), as the origin's RQ service did
    expect(second.body).toMatchObject({ queue_position: 0, estimated_wait: expect.any(Number) });
    expect(third.body.queue_position).toBe(1);
    expect(third.body.message).toMatch(/3\.wav .*1 job\(s\) ahead/);
    const during = (await t.http.get('/queue/stats').expect(200)).body;
    expect(during).toMatchObject({ started: 1, queued: 2 });
    expect((await t.http.get(`/transcribe/status/${second.body.job_id}`).expect(200)).body).toMatchObject({ status: 'queued', queue_position: 0 });
    expect((await t.http.get(`/transcribe/status/${third.body.job_id}`).expect(200)).body).toMatchObject({ status: 'queued', queue_position: 1 });
    expect((await t.http.get(`/transcribe/status/${first.body.job_id}`).expect(200)).body).toMatchObject({ status: 'started', queue_position: null });

    release();
    for (const job of [first, second, third]) expect((await waitForEnd(t, job.body.job_id)).status).toBe('finished');
    const after = (await t.http.get('/queue/stats').expect(200)).body;
    expect(after.queued).toBe(0);
    expect(after.started).toBe(0);
    expect(after.finished).toBe(before.finished + 3);
  });

  describe('uploads', () => {
    it('refuses a file that is not audio with 415, judged by its bytes and not its name', async () => {
      const res = await t.http.post('/transcribe').attach('file', Buffer.from('%PDF-1.7 not audio at all'), { filename: 'fake.wav', contentType: 'audio/wav' }).expect(415);
      expect(res.body.detail).toMatch(/not a supported audio or video container/);
      await t.http.post('/transcribe/async').attach('file', Buffer.from('just some text'), 'notes.mp3').expect(415);
      expect(await uploads()).toEqual([]);
      expect(engine.requests).toHaveLength(0);
    });

    it('accepts other containers by their magic numbers (MP3 with ID3, FLAC)', async () => {
      const id3 = Buffer.concat([Buffer.from('ID3'), Buffer.from([4, 0, 0, 0, 0, 0, 0]), Buffer.alloc(200)]);
      await t.http.post('/transcribe').attach('file', id3, 'song.bin').expect(200);
      const flac = Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(100)]);
      const res = await t.http.post('/transcribe').attach('file', flac, 'x').expect(200);
      expect(res.body.metadata.media_type).toBe('audio/flac');
    });

    it('answers 400 without a file part, and 422 for a bad engine or language', async () => {
      const none = await t.http.post('/transcribe').field('language', 'en').expect(400);
      expect(none.body.detail).toMatch(/No file/);
      await t.http.post('/transcribe/async').send({ language: 'en' }).expect(400);
      await t.http.post('/transcribe').attach('other', wav, 'a.wav').expect(400);
      const badEngine = await t.http.post('/transcribe/async').field('engine', 'gpt').attach('file', wav, 'a.wav').expect(422);
      expect(badEngine.body.detail).toMatch(/engine must be one of/);
      await t.http.post('/transcribe').field('language', 'not a language!').attach('file', wav, 'a.wav').expect(422);
      const unknown = await t.http.post('/transcribe/async').field('language', 'xx').attach('file', wav, 'a.wav').expect(422);
      expect(unknown.body.detail).toMatch(/language must be an ISO 639-1 code that Whisper knows/);
      const badTask = await t.http.post('/transcribe').field('task', 'summarise').attach('file', wav, 'a.wav').expect(422);
      expect(badTask.body.detail).toMatch(/task must be one of: transcribe, translate/);
      await t.http.post('/transcribe').field('model', 'large').attach('file', wav, 'a.wav').expect(422);
      expect(engine.requests).toHaveLength(0);
      await untilNoUploads(); // a request refused by validation still had its file stored: it is removed
    });

    it('answers 400 with a clear detail for an empty file, a text "file" field, two files or a broken body', async () => {
      const empty = await t.http.post('/transcribe').attach('file', Buffer.alloc(0), 'empty.wav').expect(400);
      expect(empty.body.detail).toMatch(/The uploaded file is empty \(0 bytes\)\. Check that the recording/);
      const text = await t.http.post('/transcribe/async').field('file', 'hello').expect(400);
      expect(text.body.detail).toMatch(/"file" field holds text, not a file.*curl -F file=@audio\.mp3/);
      const two = await t.http.post('/transcribe').attach('file', wav, 'a.wav').attach('file', wav, 'b.wav').expect(400);
      expect(two.body.detail).toMatch(/could not be read \(Too many files\).*exactly one file/);
      const broken = await t.http.post('/transcribe').set('Content-Type', 'multipart/form-data; boundary=xyz').send('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF').expect(400);
      expect(broken.body.detail).toMatch(/could not be read/);
      expect(engine.requests).toHaveLength(0);
      await untilNoUploads();
    });

    it('takes the language in any case and with a region, and passes task=translate to the translations endpoint', async () => {
      engine.respondWith({ text: 'hi', language: 'en' });
      const res = await t.http.post('/transcribe').field('language', ' EN-us ').field('task', 'transcribe').attach('file', wav, 'l.wav').expect(200);
      expect(res.body.metadata).toMatchObject({ task: 'transcribe', language: 'en' });
      expect(engine.requests[0].fields.language).toBe('en');
      // the fake engine serves only /v1/audio/transcriptions: its 404 shows which path was asked
      const translate = await t.http.post('/transcribe').field('task', 'translate').attach('file', wav, 't.wav').expect(502);
      expect(translate.body.detail).toMatch(/HTTP 404: Unknown path \/v1\/audio\/translations.*use task=transcribe/);
      await untilNoUploads();
    });

    it('stops the engine call and removes the upload when the client of a synchronous request goes away', async () => {
      engine.respondWith(() => new Promise(() => undefined)); // the engine never answers
      const { port } = await listening();
      const req = streamUploadRequest(`http://127.0.0.1:${port}`, '/transcribe', wav);
      await until(() => engine.requests.length === 1, 'the request to reach the engine');
      expect(await uploads()).toHaveLength(1);
      req.destroy();
      await untilNoUploads(); // without the abort the engine call (and the file) would wait 30 minutes
      await t.http.get('/health').expect(200);
    });

    it('removes the partial file when the client aborts in the middle of an upload', async () => {
      const { port } = await listening();
      const req = streamUploadRequest(`http://127.0.0.1:${port}`, '/transcribe/async', wav, { declaredBytes: 50 * 1024 * 1024, keepOpen: true });
      await until(async () => (await uploads()).length === 1, 'the upload to start on disk');
      req.destroy();
      await untilNoUploads();
      expect(engine.requests).toHaveLength(0);
      expect((await t.http.get('/queue/stats').expect(200)).body.queued).toBe(0);
    });

    it('refuses 500 MB + 1 byte with 413 without the process holding the file in memory', async () => {
      const { port } = await listening();
      const limit = 500 * 1024 * 1024;
      expect(t.config.TRANSCRIBE_MAX_UPLOAD_BYTES).toBe(limit); // the default

      // One full collection first; the samples are taken without one (collecting every 200 ms in a Jest
      // worker holding gigabytes from earlier suites outlasted the test's time in CI)
      garbageCollector()();
      const before = process.memoryUsage();
      let peakRss = before.rss;
      let peakHeap = before.heapUsed + before.arrayBuffers;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
      }, 20);
      const res = await streamUpload(`http://127.0.0.1:${port}`, '/transcribe/async', limit + 1, makeWav({ seconds: 0.01 })).finally(() =>
        clearInterval(sampler),
      );
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body).detail).toMatch(/larger than the upload limit of 500 MB/);
      // client and server share this process: together they stay below the file's size (holding it
      // would take 500 MB more), streaming garbage not collected yet included (resident memory rose by
      // 330 MB once on a loaded CI machine, the heap and buffers by less than half the file)
      expect(peakHeap - (before.heapUsed + before.arrayBuffers)).toBeLessThan(limit / 2);
      expect(peakRss - before.rss).toBeLessThan(limit);
      expect(await uploads()).toEqual([]); // the partial file is gone
    });
  });

  it('counts ended jobs in /metrics', async () => {
    const metrics = await t.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/transcribe_jobs_total\{[^}]*engine="faster-whisper"[^}]*status="finished"[^}]*\} [1-9]/);
    expect(metrics.text).toMatch(/transcribe_jobs_total\{[^}]*engine="whisper"[^}]*status="failed"[^}]*\} [1-9]/);
  });

  it('answers 503 when the chosen engine is not configured; at start it removes uploads orphaned by a previous run', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'transcribe-orphans-'));
    await mkdir(join(dataDir, 'transcribe', 'uploads'), { recursive: true });
    await writeFile(join(dataDir, 'transcribe', 'uploads', 'left-over.upload'), wav);
    const other = await createTestApp(transcribeApiService, { FASTER_WHISPER_URL: engine.url, DATA_DIR: dataDir });
    try {
      expect(await readdir(join(dataDir, 'transcribe', 'uploads'))).toEqual([]);
      const res = await other.http.post('/transcribe/async').field('engine', 'whisper').attach('file', wav, 'a.wav').expect(503);
      expect(res.body.detail).toMatch(/not configured/);
      expect((await other.http.get('/health').expect(200)).body).toMatchObject({ status: 'healthy', whisper: 'not_configured' });
      expect(await readdir(join(other.config.DATA_DIR, 'transcribe', 'uploads'))).toEqual([]);
    } finally {
      await other.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('with Redis unreachable: /health says disconnected, submitting and reading answer 503, never 500', async () => {
    const down = await createTestApp(transcribeApiService, {
      REDIS_URL: 'redis://127.0.0.1:1',
      FASTER_WHISPER_URL: engine.url,
      TRANSCRIBE_ROLE: 'api',
      TRANSCRIBE_REDIS_TIMEOUT_MS: '300',
    });
    try {
      expect((await down.http.get('/health').expect(200)).body).toMatchObject({ status: 'unhealthy', redis: 'disconnected', faster_whisper: 'healthy' });
      await down.http.get('/readyz').expect(503);
      const submit = await down.http.post('/transcribe/async').attach('file', wav, 'r.wav').expect(503);
      expect(submit.body.detail).toMatch(/Could not queue the job/);
      await down.http.get('/transcribe/status/6f1d7c1e-0000-4000-8000-000000000000').expect(503);
      await down.http.get('/queue/stats').expect(503);
      expect(await readdir(uploadDir(down.config))).toEqual([]);
    } finally {
      await down.close();
    }
  });
});
