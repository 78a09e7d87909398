import { makeWav, startFakeTranscriptionEngine, type FakeTranscriptionEngine } from '@platform/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backoffMs, EngineClient, EngineError, normaliseBaseUrl, parseEngineResponse, type EngineClientOptions } from './engine-client';

describe('EngineClient against an OpenAI-compatible engine', () => {
  let engine: FakeTranscriptionEngine;
  let dir: string;
  let file: { path: string; filename: string; mediaType: string };
  const wav = makeWav({ seconds: 0.2 });
  const clients: EngineClient[] = [];
  const client = (over: Partial<EngineClientOptions> = {}) => {
    const c = new EngineClient({ engine: 'faster-whisper', baseUrl: engine.url, model: 'Systran/faster-whisper-small', timeoutMs: 5_000, attempts: 3, retryBaseMs: 1, ...over });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    engine = await startFakeTranscriptionEngine();
    dir = await mkdtemp(join(tmpdir(), 'engine-client-'));
    file = { path: join(dir, 'a.upload'), filename: 'meeting.wav', mediaType: 'audio/wav' };
    await writeFile(file.path, wav);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => engine.reset());

  it('sends the file from disk with the OpenAI fields and reads verbose_json', async () => {
    engine.respondWith({ text: 'hello', language: 'en', duration: 0.2, segments: [{ id: 0, start: 0, end: 0.2, text: 'hello' }] });
    const out = await client().transcribe(file, { language: 'en' });
    expect(out).toEqual({
      text: 'hello',
      language: 'en',
      duration: 0.2,
      segments: [{ id: 0, start: 0, end: 0.2, text: 'hello' }],
      words: [{ word: ' hello', start: 0, end: 0.2, probability: 0.9 }],
    });
    const [req] = engine.requests;
    expect(req.path).toBe('/v1/audio/transcriptions');
    expect(req.fieldList).toEqual([
      ['model', 'Systran/faster-whisper-small'],
      ['response_format', 'verbose_json'],
      ['timestamp_granularities[]', 'segment'],
      ['timestamp_granularities[]', 'word'],
      ['language', 'en'],
    ]);
    expect(req.apiKey).toBeNull();
    expect(req.file).toMatchObject({ field: 'file', filename: 'meeting.wav', contentType: 'audio/wav', size: wav.length });
    expect(req.file!.data.equals(wav)).toBe(true);
  });

  it('omits language when none is given (the engine detects it)', async () => {
    await client().transcribe(file, { language: null });
    expect(engine.requests[0].fields.language).toBeUndefined();
  });

  it('accepts a base URL that already ends in /v1', async () => {
    await client({ baseUrl: `${engine.url}/v1/` }).transcribe(file);
    expect(engine.requests[0].path).toBe('/v1/audio/transcriptions');
  });

  it('retries transient failures (503, connection reset) with backoff, then succeeds', async () => {
    engine.failNext({ status: 503 });
    engine.failNext({ mode: 'reset' });
    engine.respondWith({ text: 'third time lucky' });
    const out = await client().transcribe(file);
    expect(out.text).toBe('third time lucky');
    expect(engine.requests).toHaveLength(3);
  });

  it('gives up after the configured attempts with the last reason', async () => {
    engine.failNext({ status: 502, times: 5 });
    await expect(client({ attempts: 2 }).transcribe(file)).rejects.toThrow(/HTTP 502.*after 2 attempt/);
    expect(engine.requests).toHaveLength(2);
  });

  it('does not retry a client error, and passes on the engine message', async () => {
    engine.failNext({ status: 400, body: { error: { message: 'Invalid file format', type: 'invalid_request_error' } } });
    const err = await client().transcribe(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).message).toMatch(/HTTP 400: Invalid file format/);
    expect((err as EngineError).transient).toBe(false);
    expect(engine.requests).toHaveLength(1);
  });

  it('reports an engine that is down as unreachable, after retrying', async () => {
    const down = client({ baseUrl: 'http://127.0.0.1:1', attempts: 2 });
    await expect(down.transcribe(file)).rejects.toThrow(/unreachable \(ECONNREFUSED\) after 2 attempt/);
    await expect(down.check()).rejects.toThrow(/unreachable/);
  });

  it('abandons an engine that does not answer within the timeout', async () => {
    engine.respondWith(() => new Promise(() => undefined));
    await expect(client({ timeoutMs: 500 }).transcribe(file)).rejects.toThrow(/did not answer within/);
    // a timeout is not retried: one request reached the engine (counted when its headers arrived, as
    // a busy machine may not have finished the upload within the timeout)
    expect(engine.arrivals).toBe(1);
  });

  it('sends task=translate to /v1/audio/translations, without language or timestamp fields', async () => {
    const seen: Array<{ url?: string; body: string }> = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ url: req.url, body: Buffer.concat(chunks).toString('latin1') });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ task: 'translate', language: 'french', duration: 0.2, text: 'Hello everyone.', segments: [{ id: 0, start: 0, end: 0.2, text: 'Hello everyone.' }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const out = await client({ baseUrl: `http://127.0.0.1:${port}` }).transcribe(file, { language: 'fr', task: 'translate' });
      expect(out).toMatchObject({ text: 'Hello everyone.', language: 'fr', segments: [{ text: 'Hello everyone.' }] });
      expect(seen).toHaveLength(1);
      expect(seen[0].url).toBe('/v1/audio/translations');
      expect(seen[0].body).toMatch(/name="response_format"\r\n\r\nverbose_json/);
      expect(seen[0].body).toMatch(/name="model"\r\n\r\nSystran\/faster-whisper-small/);
      expect(seen[0].body).not.toMatch(/name="language"|timestamp_granularities/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('sends the API key as a bearer token, and the prompt', async () => {
    const strict = await startFakeTranscriptionEngine({ apiKey: 'sk-hosted' });
    try {
      const keyed = client({ baseUrl: strict.url, apiKey: 'sk-hosted' });
      await expect(keyed.transcribe(file, { prompt: 'Kubernetes, Nx' })).resolves.toMatchObject({ text: 'Transcript of meeting.' });
      await expect(keyed.check()).resolves.toBeUndefined();
      expect(strict.requests[0]).toMatchObject({ apiKey: 'sk-hosted', fields: { prompt: 'Kubernetes, Nx' } });
      await expect(client({ baseUrl: strict.url, apiKey: 'sk-wrong' }).transcribe(file)).rejects.toThrow(/HTTP 401: Incorrect API key/);
    } finally {
      await strict.close();
    }
  });

  it('detects the language of an OpenAI-compatible engine from a transcription, without a confidence', async () => {
    engine.respondWith({ language: 'german' });
    await expect(client().detectLanguage(file)).resolves.toEqual({ language_code: 'de', confidence: null });
    expect(engine.requests[0].path).toBe('/v1/audio/transcriptions');
  });

  it('check() passes on /health, and falls back to /v1/models', async () => {
    await expect(client().check()).resolves.toBeUndefined();
    const server: Server = createServer((req, res) => {
      res.statusCode = req.url === '/v1/models' ? 200 : 404;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      await expect(client({ baseUrl: `http://127.0.0.1:${port}` }).check()).resolves.toBeUndefined();
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe('EngineClient against a whisper-asr-webservice engine (/asr)', () => {
  let engine: FakeTranscriptionEngine;
  let dir: string;
  let file: { path: string; filename: string; mediaType: string };
  let asr: EngineClient;

  beforeAll(async () => {
    engine = await startFakeTranscriptionEngine({ diarization: true, apiKey: 'proxy-key' });
    dir = await mkdtemp(join(tmpdir(), 'engine-asr-'));
    file = { path: join(dir, 'a.upload'), filename: 'panel.wav', mediaType: 'audio/wav' };
    await writeFile(file.path, makeWav({ seconds: 0.2 }));
    asr = new EngineClient({ engine: 'whisper', protocol: 'asr', diarization: true, apiKey: 'proxy-key', baseUrl: engine.url, model: 'unused', timeoutMs: 5_000, attempts: 2, retryBaseMs: 1 });
  });
  afterAll(async () => {
    await asr.close();
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => engine.reset());

  it('posts audio_file to /asr with the options as query parameters and reads the JSON output', async () => {
    engine.respondWith({ language: 'fr', segments: [{ id: 0, start: 0, end: 1, text: ' Bonjour.' }] });
    const out = await asr.transcribe(file, { language: 'fr', task: 'transcribe', prompt: 'Panel', vadFilter: true });
    const [req] = engine.requests;
    expect(req).toMatchObject({ path: '/asr', apiKey: 'proxy-key', file: { field: 'audio_file', filename: 'panel.wav' } });
    expect(req.query).toEqual({ encode: 'true', task: 'transcribe', output: 'json', word_timestamps: 'true', language: 'fr', initial_prompt: 'Panel', vad_filter: 'true' });
    expect(out).toMatchObject({ text: ' Bonjour.', language: 'fr', segments: [{ id: 0, start: 0, end: 1, text: ' Bonjour.', avg_logprob: -0.25, words: [{ word: ' Bonjour.', start: 0, end: 1 }] }] });
  });

  it('asks WhisperX for speakers and keeps them on segments and words', async () => {
    engine.respondWith({ segments: [{ id: 0, start: 0, end: 1, text: 'Hi.' }, { id: 1, start: 1, end: 2, text: 'Hello.' }] });
    const out = await asr.transcribe(file, { diarize: { minSpeakers: 2, maxSpeakers: 2 } });
    expect(engine.requests[0].query).toMatchObject({ diarize: 'true', min_speakers: '2', max_speakers: '2' });
    expect(out.text).toBe('Hi. Hello.'); // WhisperX's document has no text: joined from the segments
    expect(out.segments.map((s) => s.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    expect(out.words).toEqual([expect.objectContaining({ word: ' Hi.', speaker: 'SPEAKER_00' }), expect.objectContaining({ word: ' Hello.', speaker: 'SPEAKER_01' })]);
    expect(asr.capabilities).toEqual({ vadFilter: true, diarize: true, languageConfidence: true });
  });

  it('detects the language with /detect-language, confidence included', async () => {
    engine.detectLanguageWith({ language_code: 'it', confidence: 0.82 });
    await expect(asr.detectLanguage(file)).resolves.toEqual({ language_code: 'it', confidence: 0.82 });
    expect(engine.requests[0]).toMatchObject({ path: '/detect-language', query: { encode: 'true' } });
  });

  it('retries a 503 of /asr, and health falls back to /openapi.json', async () => {
    engine.failNext({ status: 503 });
    await expect(asr.transcribe(file)).resolves.toMatchObject({ segments: [expect.anything()] });
    expect(engine.requests).toHaveLength(2);
    await expect(asr.check()).resolves.toBeUndefined();
  });
});

describe('engine client helpers', () => {
  it('parseEngineResponse normalises segments and derives the duration when missing', () => {
    expect(parseEngineResponse({ text: 'a', segments: [{ start: 0, end: 3.5, text: 'a', tokens: [1] }] })).toEqual({
      text: 'a',
      language: null,
      duration: 3.5,
      segments: [{ id: 0, start: 0, end: 3.5, text: 'a', tokens: [1] }],
    });
    expect(parseEngineResponse({ text: 'plain json' })).toEqual({ text: 'plain json', language: null, duration: null, segments: [] });
    expect(() => parseEngineResponse({ transcript: 'x' })).toThrow(/without a "text" field/);
  });

  it('parseEngineResponse keeps probabilities and words, maps language names, reads faster-whisper tuples', () => {
    const verbose = parseEngineResponse({
      text: 'hi there',
      language: 'english',
      duration: 2,
      segments: [{ id: 3, seek: 0, start: 0, end: 2, text: 'hi there', avg_logprob: -0.2, no_speech_prob: 0.01, compression_ratio: 1.1, temperature: 0 }],
      words: [{ word: 'hi', start: 0, end: 0.5 }, { word: 'there', start: 0.6, end: 2, probability: 0.7 }, { word: '42' }],
    });
    expect(verbose.language).toBe('en');
    expect(verbose.segments[0]).toEqual({ id: 3, seek: 0, start: 0, end: 2, text: 'hi there', avg_logprob: -0.2, no_speech_prob: 0.01, compression_ratio: 1.1, temperature: 0 });
    expect(verbose.words).toEqual([{ word: 'hi', start: 0, end: 0.5 }, { word: 'there', start: 0.6, end: 2, probability: 0.7 }]);
    const tuples = parseEngineResponse({ text: ' a', language: 'en', segments: [[0, 0, 0, 1.5, ' a', [50364], 0, -0.3, 1.0, 0.02, [[0, 1.5, ' a', 0.9]]]] });
    expect(tuples.segments[0]).toMatchObject({ id: 0, start: 0, end: 1.5, text: ' a', avg_logprob: -0.3, no_speech_prob: 0.02, words: [{ start: 0, end: 1.5, word: ' a', probability: 0.9 }] });
  });

  it('backoffMs doubles, stays within ±20 %, honours Retry-After and is capped', () => {
    for (let i = 0; i < 20; i++) {
      const d = backoffMs(3, 100);
      expect(d).toBeGreaterThanOrEqual(320);
      expect(d).toBeLessThanOrEqual(480);
    }
    expect(backoffMs(1, 100, 2)).toBe(2000);
    expect(backoffMs(20, 1000)).toBe(30_000);
  });

  it('normaliseBaseUrl strips trailing slashes and /v1', () => {
    expect(normaliseBaseUrl('http://e:8000/v1/')).toBe('http://e:8000');
    expect(normaliseBaseUrl('http://e:8000/')).toBe('http://e:8000');
  });
});
