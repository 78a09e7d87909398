import { createTestApp, deleteKeysByPrefix, makeWav, startFakeTranscriptionEngine, testServices, uniqueSuffix, type FakeTranscriptionEngine, type TestApp } from '@platform/testing';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { TranscribeConfig } from './config';
import { EnginesService } from './engines/engines.service';
import { Clock } from './transcription/clock';
import { TranscriptionQueues } from './queue/transcription-queue';
import { transcribeApiService } from './service';
import { uploadDirOf } from './uploads/upload-dir';

/**
 * Output formats, whisper-asr-webservice compatibility (/asr, /detect-language), diarization through
 * the /asr engine protocol, API keys, the bound on synchronous calls and the jobs routes, against
 * the fake engine speaking both protocols. On BullMQ when Redis runs, else on the in-memory queue.
 */
const { redisUrl } = testServices();
const expected = (name: string) => readFileSync(join(__dirname, '..', 'test', 'expected', name), 'utf8');
const expectedJson = (name: string) => JSON.parse(expected(name)) as Record<string, unknown>;

/** The engine's answer every case starts from: a long segment, an empty one, one overlapping. */
const FIXTURE = {
  text: 'Hello and welcome to the show. Today we talk about subtitles, line lengths and why long segments are split into cues. Overlaps --> end early.',
  language: 'en',
  duration: 11.25,
  segments: [
    { id: 0, start: 0, end: 2.5, text: ' Hello and welcome to the show.', avg_logprob: -0.21, no_speech_prob: 0.02 },
    { id: 1, start: 2.5, end: 9, text: ' Today we talk about subtitles, line lengths and why long segments are split into cues.', avg_logprob: -0.21, no_speech_prob: 0.02 },
    { id: 2, start: 9, end: 9.5, text: '   ', avg_logprob: -0.21, no_speech_prob: 0.02 },
    { id: 3, start: 8.5, end: 11.25, text: ' Overlaps --> end early.', avg_logprob: -0.21, no_speech_prob: 0.02 },
  ],
};

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** An engine answer the test releases by hand. */
function held(): { responder: () => Promise<typeof FIXTURE>; release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { responder: async () => (await gate, FIXTURE), release };
}

describe(`transcribe-api: formats, whisper-asr-webservice compatibility, limits and jobs (${redisUrl ? 'BullMQ' : 'in-memory queue'})`, () => {
  const wav = makeWav({ seconds: 0.25 });
  const prefix = `test-${uniqueSuffix()}`;
  let fast: FakeTranscriptionEngine; // OpenAI-compatible, the default engine
  let asr: FakeTranscriptionEngine; // whisper-asr-webservice on WhisperX, the higher-quality engine
  let t: TestApp<TranscribeConfig>;
  let now = Date.now();

  beforeAll(async () => {
    fast = await startFakeTranscriptionEngine({ apiKey: 'sk-fast' });
    asr = await startFakeTranscriptionEngine({ apiKey: 'sk-asr', diarization: true });
    t = await createTestApp(transcribeApiService, env());
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => now);
  });
  /** The app's variables; its own Redis keys (the engines' shared bound) under the test's prefix. */
  const env = () => ({
    ...(redisUrl ? { REDIS_URL: redisUrl, TRANSCRIBE_QUEUE_PREFIX: prefix, REDIS_KEY_PREFIX: `${prefix}:app:` } : {}),
    FASTER_WHISPER_URL: fast.url,
    FASTER_WHISPER_API_KEY: 'sk-fast',
    WHISPER_URL: asr.url,
    WHISPER_PROTOCOL: 'asr',
    WHISPER_DIARIZATION: 'true',
    WHISPER_API_KEY: 'sk-asr',
    FASTER_WHISPER_SYNC_CONCURRENCY: '1',
    TRANSCRIBE_SYNC_QUEUE_SIZE: '1',
    TRANSCRIBE_RESULT_TTL_SECONDS: '3600',
    TRANSCRIBE_READ_RESULT_TTL_SECONDS: '600',
    TRANSCRIBE_ENGINE_ATTEMPTS: '1',
  });
  afterAll(async () => {
    await t?.close();
    await fast?.close();
    await asr?.close();
    if (redisUrl) await deleteKeysByPrefix(redisUrl, `${prefix}:`, [0, 1]);
  });
  beforeEach(() => {
    now = Date.now();
    fast.reset();
    asr.reset();
    fast.respondWith(FIXTURE);
    asr.respondWith(FIXTURE);
  });

  const uploads = () => readdir(uploadDirOf(t.config));
  const transcribe = (format: string) => t.http.post('/transcribe').field('response_format', format).attach('file', wav, 'talk.wav').expect(200);

  describe('POST /transcribe in every format', () => {
    it.each([
      ['srt', 'transcript.srt', /^application\/x-subrip/],
      ['vtt', 'transcript.vtt', /^text\/vtt/],
      ['tsv', 'transcript.tsv', /^text\/tab-separated-values/],
      ['text', 'transcript.txt', /^text\/plain/],
      ['txt', 'transcript.txt', /^text\/plain/],
    ])('%s matches %s', async (format, file, type) => {
      const res = await transcribe(format).buffer(true).parse((r, cb) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c.toString('utf8')));
        r.on('end', () => cb(null, body));
      });
      expect(res.headers['content-type']).toMatch(type);
      expect(res.body).toBe(expected(file));
    });

    it('json keeps today\'s shape: segments cut to id, start, end, text, no words', async () => {
      const res = await transcribe('json');
      expect(res.body).toMatchObject(expectedJson('transcript.json'));
      expect(res.body.segments[1]).toEqual(expectedJson('transcript.json').segments instanceof Array ? (expectedJson('transcript.json').segments as unknown[])[1] : null);
      expect(res.body.words).toBeUndefined();
      // the default is json too
      const plain = await t.http.post('/transcribe').attach('file', wav, 'talk.wav').expect(200);
      expect(plain.body.segments).toEqual(res.body.segments);
    });

    it('verbose_json keeps everything the engine gave: probabilities and words with timings', async () => {
      const res = await transcribe('verbose_json');
      expect(res.body).toMatchObject(expectedJson('verbose.json'));
    });

    it('sends the engine\'s API key and asks for word timestamps', async () => {
      await transcribe('json');
      expect(fast.requests[0].apiKey).toBe('sk-fast');
      expect(fast.requests[0].fieldList).toEqual(expect.arrayContaining([['timestamp_granularities[]', 'word']]));
    });

    it('refuses an unknown format, and options the OpenAI-compatible engine cannot honour', async () => {
      const bad = await t.http.post('/transcribe').field('response_format', 'docx').attach('file', wav, 'talk.wav').expect(422);
      expect(bad.body.detail).toMatch(/response_format must be one of: json, verbose_json, text, srt, vtt, tsv, txt/);
      const vad = await t.http.post('/transcribe').field('vad_filter', 'true').attach('file', wav, 'talk.wav').expect(422);
      expect(vad.body.detail).toMatch(/vad_filter.*FASTER_WHISPER_PROTOCOL=asr/);
      const speakers = await t.http.post('/transcribe').field('diarize', 'true').attach('file', wav, 'talk.wav').expect(422);
      expect(speakers.body.detail).toMatch(/does not diarize/);
      expect(fast.requests).toHaveLength(0);
      await until(async () => (await uploads()).length === 0, 'the refused uploads to be removed');
    });
  });

  describe('whisper-asr-webservice routes', () => {
    const text = (res: { text?: string }) => res.text ?? '';

    it('documents /asr and /detect-language with the parameters of whisper-asr-webservice\'s OpenAPI description', async () => {
      // Its webservice.py: /asr takes audio_file (multipart) and the query parameters below (diarize,
      // min_speakers, max_speakers on WhisperX deployments); /detect-language audio_file and encode.
      const doc = (await t.http.get('/api/docs-json').expect(200)).body;
      const params = (path: string) => (doc.paths[path].post.parameters as Array<{ name: string; in: string }>).filter((p) => p.in === 'query').map((p) => p.name);
      expect(params('/asr')).toEqual(expect.arrayContaining(['encode', 'task', 'language', 'initial_prompt', 'vad_filter', 'word_timestamps', 'output', 'diarize', 'min_speakers', 'max_speakers']));
      expect(params('/detect-language')).toEqual(expect.arrayContaining(['encode']));
      for (const path of ['/asr', '/detect-language']) {
        const body = doc.paths[path].post.requestBody.content['multipart/form-data'].schema;
        const schema = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
        expect(schema.properties.audio_file).toMatchObject({ type: 'string', format: 'binary' });
      }
      const output = (doc.paths['/asr'].post.parameters as Array<{ name: string; schema: { enum?: string[]; default?: string } }>).find((p) => p.name === 'output')!;
      expect(output.schema).toMatchObject({ enum: ['txt', 'vtt', 'srt', 'tsv', 'json'], default: 'txt' });
    });

    it('POST /asr answers txt by default as a text/plain attachment, srt and json as that service does', async () => {
      const txt = await t.http.post('/asr').attach('audio_file', wav, 'talk.wav').expect(200);
      expect(txt.headers['content-type']).toMatch(/^text\/plain/);
      expect(txt.headers['content-disposition']).toBe('attachment; filename="talk.wav.txt"');
      expect(txt.headers['asr-engine']).toBe('faster-whisper');
      expect(text(txt)).toBe(expected('transcript.txt'));
      const srt = await t.http.post('/asr?output=srt').attach('audio_file', wav, 'talk.wav').expect(200);
      expect(text(srt)).toBe(expected('asr.srt'));
      const json = await t.http.post('/asr?output=json&engine=whisper').attach('audio_file', wav, 'talk.wav').expect(200);
      expect(json.headers['content-disposition']).toBe('attachment; filename="talk.wav.json"');
      expect(JSON.parse(text(json))).toEqual(expectedJson('asr.json'));
      const words = await t.http.post('/asr?output=json&word_timestamps=true').attach('audio_file', wav, 'talk.wav').expect(200);
      expect(JSON.parse(text(words)).segments[0].words[0]).toEqual({ word: ' Hello', start: 0, end: 0.417, probability: 0.9 });
    });

    it('passes task, language, initial_prompt and vad_filter to an /asr engine with its API key', async () => {
      await t.http
        .post('/asr?task=translate&language=FR&initial_prompt=Bonjour&vad_filter=true&encode=true&output=vtt&engine=whisper')
        .attach('audio_file', wav, 'talk.wav')
        .expect(200);
      expect(asr.requests[0]).toMatchObject({
        path: '/asr',
        apiKey: 'sk-asr',
        query: { task: 'translate', language: 'fr', initial_prompt: 'Bonjour', vad_filter: 'true', output: 'json', encode: 'true' },
        file: { field: 'audio_file', filename: 'talk.wav' },
      });
    });

    it('diarizes through the /asr engine: with diarize and no engine, the engine that can is chosen', async () => {
      const res = await t.http.post('/asr?output=vtt&diarize=true&min_speakers=1&max_speakers=2').attach('audio_file', wav, 'talk.wav').expect(200);
      expect(text(res)).toBe(expected('asr-diarized.vtt'));
      expect(res.headers['asr-engine']).toBe('whisper');
      expect(asr.requests[0].query).toMatchObject({ diarize: 'true', min_speakers: '1', max_speakers: '2' });
      expect(fast.requests).toHaveLength(0);
    });

    it('refuses what it cannot honour with a clear 422', async () => {
      const cases: Array<[string, RegExp]> = [
        ['/asr?encode=false', /encode=false .* not supported/],
        ['/asr?output=docx', /output must be one of: txt, vtt, srt, tsv, json/],
        ['/asr?vad_filter=true&engine=faster-whisper', /no voice activity detection/],
        ['/asr?diarize=true&engine=faster-whisper', /does not diarize/],
        ['/asr?min_speakers=2&engine=whisper', /only apply with diarize=true/],
        ['/asr?language=klingon', /language must be a language code/],
        ['/asr?word_timestamps=maybe', /word_timestamps must be true or false/],
      ];
      for (const [path, detail] of cases) {
        const res = await t.http.post(path).attach('audio_file', wav, 'talk.wav');
        expect([path, res.status]).toEqual([path, 422]);
        expect(res.body.detail).toMatch(detail);
      }
      await t.http.post('/asr').attach('file', wav, 'talk.wav').expect(400);
      expect(fast.requests).toHaveLength(0);
      expect(asr.requests).toHaveLength(0);
    });

    it('POST /detect-language: the /asr engine\'s answer, or an OpenAI-compatible engine\'s transcription language without confidence', async () => {
      asr.detectLanguageWith({ language_code: 'fr', confidence: 0.91 });
      const fromAsr = await t.http.post('/detect-language?engine=whisper').attach('audio_file', wav, 'talk.wav').expect(200);
      expect(fromAsr.body).toEqual({ detected_language: 'french', language_code: 'fr', confidence: 0.91 });
      fast.respondWith({ ...FIXTURE, language: 'german' });
      const fromOpenAi = await t.http.post('/detect-language').attach('audio_file', wav, 'talk.wav').expect(200);
      expect(fromOpenAi.body).toEqual({ detected_language: 'german', language_code: 'de', confidence: null });
      await t.http.post('/detect-language?encode=false').attach('audio_file', wav, 'talk.wav').expect(422);
    });
  });

  it('bounds synchronous calls per engine: one runs, one waits, the rest get 503 with Retry-After', async () => {
    const hold = held();
    fast.respondWith(hold.responder);
    const gate = t.app.get(EnginesService).gate('faster-whisper');
    const first = t.http.post('/transcribe').attach('file', wav, 'a.wav').then((r) => r);
    await until(() => fast.requests.length === 1, 'the first call to reach the engine');
    const second = t.http.post('/transcribe').attach('file', wav, 'b.wav').then((r) => r);
    await until(() => gate.waiting === 1, 'the second call to wait for the slot');
    const refused = await t.http.post('/transcribe').attach('file', wav, 'c.wav').expect(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.body.detail).toMatch(/Engine faster-whisper is busy: 1 synchronous call\(s\) running and 1 waiting.*Retry after \d+ s/);
    const asrToo = await t.http.post('/asr').attach('audio_file', wav, 'd.wav').expect(503);
    expect(asrToo.headers['retry-after']).toBeDefined();
    expect(fast.requests).toHaveLength(1); // the waiting call has not reached the engine
    hold.release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(fast.requests).toHaveLength(2);
    await until(async () => (await uploads()).length === 0, 'every upload to be removed');
  });

  (redisUrl ? it : it.skip)('shares the bound among API processes on one Redis: a second replica\'s call waits for the first\'s slot, a third is refused', async () => {
    const other = await createTestApp(transcribeApiService, { ...env(), TRANSCRIBE_ROLE: 'api' });
    const hold = held();
    try {
      fast.respondWith(hold.responder);
      const before = fast.requests.length;
      const first = t.http.post('/transcribe').attach('file', wav, 'a.wav').then((r) => r);
      await until(() => fast.requests.length === before + 1, 'the first call to reach the engine');
      const second = other.http.post('/transcribe').attach('file', wav, 'b.wav').then((r) => r);
      await until(() => other.app.get(EnginesService).gate('faster-whisper').waiting === 1, 'the other replica\'s call to wait for the slot');
      // One slot and a line of one for the engine, whichever replica is asked.
      for (const app of [t, other]) {
        const refused = await app.http.post('/transcribe').attach('file', wav, 'c.wav').expect(503);
        expect(refused.body.detail).toMatch(/Engine faster-whisper is busy: 1 synchronous call\(s\) running and 1 waiting/);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      expect(fast.requests).toHaveLength(before + 1);
      hold.release();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      expect(fast.requests).toHaveLength(before + 2);
    } finally {
      hold.release(); // a failed expectation must not leave the engine holding answers the apps wait for when closing
      await other.close();
    }
  });

  describe('jobs', () => {
    const submit = (engine = 'faster-whisper', fields: Record<string, string> = {}) => {
      let req = t.http.post('/transcribe/async').field('engine', engine);
      for (const [k, v] of Object.entries(fields)) req = req.field(k, v);
      return req.attach('file', wav, `${engine}.wav`).expect(200);
    };
    const status = (id: string) => t.http.get(`/transcribe/status/${id}`);
    const ended = (id: string) => until(async () => ['finished', 'failed', 'cancelled'].includes((await status(id)).body.status), `job ${id} to end`);

    it('a diarized job on the /asr engine: speakers in the record and its result as VTT voice turns', async () => {
      const job = (await submit('whisper', { diarize: 'true', max_speakers: '2' })).body.job_id as string;
      await ended(job);
      const record = (await status(job).expect(200)).body;
      expect(record.result.segments.map((s: { speaker?: string }) => s.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_00', 'SPEAKER_01']);
      const vtt = await status(job).query({ output: 'vtt' }).expect(200);
      expect(vtt.headers['content-type']).toMatch(/^text\/vtt/);
      expect(vtt.text).toBe(expected('job-diarized.vtt'));
      expect(asr.requests[0].query).toMatchObject({ diarize: 'true', max_speakers: '2' });
      await t.http.post('/transcribe/async').field('diarize', 'true').attach('file', wav, 'x.wav').expect(422); // faster-whisper cannot
    });

    it('lists, reports progress, and cancels a queued and a running job (the engine sees its request aborted, uploads removed)', async () => {
      const warm = (await submit()).body.job_id as string; // a finished job gives the queue its real-time factor
      await ended(warm);
      const hold = held();
      fast.respondWith(hold.responder);
      const running = (await submit()).body.job_id as string;
      await until(() => fast.requests.length === 2, 'the second job to reach the engine');
      const queued = (await submit()).body.job_id as string;

      const startedRecord = (await status(running).expect(200)).body;
      expect(startedRecord).toMatchObject({ status: 'started', progress: { audio_seconds: 0.25, real_time_factor: expect.any(Number), percent: expect.any(Number) } });
      expect(startedRecord.progress.estimated_total_seconds).toBeCloseTo(0.25 * startedRecord.progress.real_time_factor, 2);
      now = Date.parse(startedRecord.started_at) + 30_000;
      expect((await status(running).expect(200)).body.progress).toMatchObject({ elapsed_seconds: 30, percent: 99 });
      now = Date.now();
      expect((await status(queued).expect(200)).body).toMatchObject({ status: 'queued', queue_position: 0, progress: null });

      const list = (await t.http.get('/transcribe/jobs').query({ engine: 'faster-whisper', limit: 2 }).expect(200)).body;
      expect(list.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([queued, running]);
      expect(list).toMatchObject({ page: 1, limit: 2 });
      expect(list.total).toBeGreaterThanOrEqual(3);
      expect(list.jobs[0].result).toBeUndefined();
      expect((await t.http.get('/transcribe/jobs').query({ status: 'queued' }).expect(200)).body).toMatchObject({ total: 1, jobs: [{ job_id: queued }] });
      const page2 = (await t.http.get('/transcribe/jobs').query({ engine: 'faster-whisper', limit: 2, page: 2 }).expect(200)).body;
      expect(page2.jobs.map((j: { job_id: string }) => j.job_id)).toContain(warm);
      await t.http.get('/transcribe/jobs').query({ status: 'lost', limit: 500 }).expect(422);

      expect((await t.http.delete(`/transcribe/jobs/${queued}`).expect(200)).body).toMatchObject({ job_id: queued, status: 'cancelled' });
      expect((await status(queued).expect(200)).body.status).toBe('cancelled');
      expect((await t.http.delete(`/transcribe/jobs/${running}`).expect(200)).body).toMatchObject({ job_id: running, status: 'cancelled' });
      await until(() => fast.aborted.length === 1, 'the engine to see the request aborted');
      expect(fast.aborted[0].file?.filename).toBe('faster-whisper.wav');
      await ended(running);
      expect((await status(running).expect(200)).body).toMatchObject({ status: 'cancelled', result: null });
      await until(async () => (await uploads()).length === 0, 'the uploads of the cancelled jobs to be removed');
      expect(fast.requests).toHaveLength(2); // the queued job never reached the engine
      expect((await t.http.get('/transcribe/jobs').query({ status: 'cancelled' }).expect(200)).body.total).toBe(2);

      // an ended job: DELETE removes its record
      expect((await t.http.delete(`/transcribe/jobs/${warm}`).expect(200)).body).toMatchObject({ status: 'deleted' });
      await status(warm).expect(404);
      await t.http.delete(`/transcribe/jobs/${warm}`).expect(404);
      hold.release();
    });

    it('removes results a documented time after they were first read, and later when never read', async () => {
      const read = (await submit()).body.job_id as string;
      const unread = (await submit()).body.job_id as string;
      await ended(read);
      await until(async () => (await t.app.get(TranscriptionQueues).get('faster-whisper').get(unread))?.status === 'finished', 'the unread job to finish');
      const first = (await status(read).expect(200)).body;
      expect(Date.parse(first.expires_at)).toBe(now + 600_000);
      expect((await status(read).query({ output: 'srt' }).expect(200)).text).toBe(expected('transcript.srt'));
      const queue = t.app.get(TranscriptionQueues).get('faster-whisper');
      now += 599_000;
      await queue.sweep();
      await status(read).expect(200);
      now += 1_000;
      await queue.sweep();
      await status(read).expect(404);
      now += 3_001_000; // 3601 s after the test started: more than 3600 s after the unread job ended
      await queue.sweep();
      expect(await queue.get(unread)).toBeNull();
      await status(unread).expect(404);
    });

    it('answers 409 for a result in a format before the job finished', async () => {
      const hold = held();
      fast.respondWith(hold.responder);
      const job = (await submit()).body.job_id as string;
      await until(() => fast.requests.length === 1, 'the job to start');
      const res = await status(job).query({ output: 'srt' }).expect(409);
      expect(res.body.detail).toMatch(/is started: only a finished job has a result/);
      hold.release();
      await ended(job);
    });
  });
});
