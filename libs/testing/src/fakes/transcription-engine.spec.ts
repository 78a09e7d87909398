import { once } from 'node:events';
import { connect } from 'node:net';
import { parseMultipart, startFakeTranscriptionEngine, type FakeTranscriptionEngine } from './transcription-engine';

function upload(fields: Record<string, string>, file?: { name: string; data: string; type?: string }): FormData {
  const form = new FormData();
  if (file) form.append('file', new Blob([file.data], { type: file.type ?? 'audio/mpeg' }), file.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

describe('fake OpenAI-compatible transcription engine', () => {
  let engine: FakeTranscriptionEngine;
  const post = (form: FormData, init: RequestInit = {}) => fetch(`${engine.url}/v1/audio/transcriptions`, { method: 'POST', body: form, ...init });

  beforeEach(async () => {
    engine = await startFakeTranscriptionEngine();
  });

  afterEach(async () => {
    await engine.close();
  });

  it('answers verbose_json and records the multipart upload', async () => {
    engine.respondWith({ text: 'hello world', language: 'de', segments: [{ id: 0, start: 0, end: 1.5, text: 'hello world' }] });
    const res = await post(upload({ model: 'whisper-1', response_format: 'verbose_json', language: 'de' }, { name: 'clip.mp3', data: 'ID3-audio-bytes' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      task: 'transcribe',
      text: 'hello world',
      language: 'de',
      duration: 1.5,
      segments: [{ id: 0, start: 0, end: 1.5, text: 'hello world' }],
    });
    expect(engine.requests).toHaveLength(1);
    expect(engine.requests[0].fields).toEqual({ model: 'whisper-1', response_format: 'verbose_json', language: 'de' });
    expect(engine.requests[0].file).toMatchObject({ field: 'file', filename: 'clip.mp3', contentType: 'audio/mpeg', size: 15 });
    expect(engine.requests[0].file!.data.toString()).toBe('ID3-audio-bytes');
  });

  it('derives a default answer from the file and supports json, text, srt and vtt', async () => {
    const form = (format: string) => upload({ model: 'm', response_format: format }, { name: 'team_meeting.wav', data: 'x' });
    expect(await (await post(form('json'))).json()).toEqual({ text: 'Transcript of team meeting.' });
    expect(await (await post(form('text'))).text()).toBe('Transcript of team meeting.');
    expect(await (await post(form('srt'))).text()).toBe('1\n00:00:00,000 --> 00:00:02,000\nTranscript of team meeting.\n');
    expect(await (await post(form('vtt'))).text()).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nTranscript of team meeting.\n');
  });

  it('lets a responder depend on the request', async () => {
    engine.respondWith((req) => ({ text: `model ${req.fields.model}` }));
    const res = await post(upload({ model: 'large-v3', response_format: 'verbose_json' }, { name: 'a.ogg', data: 'x' }));
    expect(await res.json()).toMatchObject({ text: 'model large-v3', segments: [{ id: 0, start: 0, end: 2, text: 'model large-v3' }] });
  });

  it('answers OpenAI-style errors for bad requests', async () => {
    const noFile = await post(upload({ model: 'whisper-1' }));
    expect(noFile.status).toBe(400);
    expect(await noFile.json()).toMatchObject({ error: { message: "Missing required parameter: 'file'" } });
    const noModel = await post(upload({}, { name: 'a.mp3', data: 'x' }));
    expect(noModel.status).toBe(400);
    const json = await fetch(`${engine.url}/v1/audio/transcriptions`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(json.status).toBe(400);
    expect((await fetch(`${engine.url}/v1/other`)).status).toBe(404);
  });

  it('checks the API key and the model when configured', async () => {
    const strict = await startFakeTranscriptionEngine({ apiKey: 'sk-test', models: ['whisper-1'] });
    try {
      const url = `${strict.url}/v1/audio/transcriptions`;
      const file = { name: 'a.mp3', data: 'x' };
      expect((await fetch(url, { method: 'POST', body: upload({ model: 'whisper-1' }, file) })).status).toBe(401);
      const auth = { authorization: 'Bearer sk-test' };
      expect((await fetch(url, { method: 'POST', body: upload({ model: 'other' }, file), headers: auth })).status).toBe(404);
      expect((await fetch(url, { method: 'POST', body: upload({ model: 'whisper-1' }, file), headers: auth })).status).toBe(200);
      expect(strict.requests.map((r) => r.apiKey)).toEqual([null, 'sk-test', 'sk-test']);
    } finally {
      await strict.close();
    }
  });

  it('fails the next requests on demand, then recovers', async () => {
    engine.failNext({ status: 503, times: 2 });
    engine.failNext({ mode: 'reset' });
    const form = () => upload({ model: 'whisper-1' }, { name: 'a.mp3', data: 'x' });
    expect((await post(form())).status).toBe(503);
    const second = await post(form());
    expect(second.status).toBe(503);
    expect(await second.json()).toMatchObject({ error: { message: 'Injected failure', type: 'server_error' } });
    await expect(post(form())).rejects.toThrow();
    expect((await post(form())).status).toBe(200);
    expect(engine.requests).toHaveLength(4);
  });

  it('holds answers while delayed, and stops waiting when the client goes away', async () => {
    engine.delay(60_000);
    const abort = new AbortController();
    let settled = false;
    const pending = post(upload({ model: 'whisper-1' }, { name: 'a.mp3', data: 'x' }), { signal: abort.signal }).finally(() => {
      settled = true;
    });
    await until(() => engine.requests.length === 1);
    expect(engine.inFlight).toBe(1);
    expect(settled).toBe(false);
    abort.abort();
    await expect(pending).rejects.toThrow();
    await until(() => engine.inFlight === 0);
    expect(engine.aborted).toHaveLength(1);
    engine.reset();
    expect(engine.aborted).toHaveLength(0);
    expect((await post(upload({ model: 'whisper-1' }, { name: 'a.mp3', data: 'x' }))).status).toBe(200);
  });

  it('counts a request on the arrival of its headers, also one whose client gives up during the upload', async () => {
    const socket = connect(Number(new URL(engine.url).port), '127.0.0.1');
    await once(socket, 'connect');
    // headers and a part of a 1,000-byte body, then the client goes away
    socket.write('POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n--b\r\n');
    await until(() => engine.arrivals === 1);
    socket.destroy();
    await until(() => engine.inFlight === 0);
    expect(engine.requests).toHaveLength(0);
    expect((await post(upload({ model: 'whisper-1' }, { name: 'a.mp3', data: 'x' }))).status).toBe(200);
    expect(engine.arrivals).toBe(2);
    expect(engine.requests).toHaveLength(1);
    engine.reset();
    expect(engine.arrivals).toBe(0);
  });
});

describe('fake engine: OpenAI word timestamps and the whisper-asr-webservice protocol', () => {
  let engine: FakeTranscriptionEngine;
  const asrForm = (name = 'talk.wav') => {
    const form = new FormData();
    form.append('audio_file', new Blob(['RIFF'], { type: 'audio/wav' }), name);
    return form;
  };
  const asr = (query: string, form = asrForm()) => fetch(`${engine.url}/asr?${query}`, { method: 'POST', body: form });

  beforeAll(async () => {
    engine = await startFakeTranscriptionEngine({ diarization: true });
  });
  afterAll(() => engine.close());
  beforeEach(() => engine.reset());

  it('adds words to verbose_json only when timestamp_granularities[] asks for them, and records repeated fields', async () => {
    engine.respondWith({ segments: [{ id: 0, start: 0, end: 2, text: 'one two' }] });
    const form = upload({ model: 'm', response_format: 'verbose_json' }, { name: 'a.wav', data: 'x' });
    form.append('timestamp_granularities[]', 'segment');
    form.append('timestamp_granularities[]', 'word');
    const body = (await (await fetch(`${engine.url}/v1/audio/transcriptions`, { method: 'POST', body: form })).json()) as { words?: unknown };
    expect(body.words).toEqual([
      { word: ' one', start: 0, end: 1, probability: 0.9 },
      { word: ' two', start: 1, end: 2, probability: 0.9 },
    ]);
    expect(engine.requests[0].fieldList.filter(([k]) => k === 'timestamp_granularities[]')).toEqual([
      ['timestamp_granularities[]', 'segment'],
      ['timestamp_granularities[]', 'word'],
    ]);
    const plain = (await (await fetch(`${engine.url}/v1/audio/transcriptions`, { method: 'POST', body: upload({ model: 'm', response_format: 'verbose_json' }, { name: 'a.wav', data: 'x' }) })).json()) as { words?: unknown };
    expect(plain.words).toBeUndefined();
  });

  it('POST /asr answers each output as a text/plain attachment and records the query', async () => {
    engine.respondWith({ segments: [{ id: 0, start: 0, end: 1.5, text: ' Hello.' }, { id: 1, start: 1.5, end: 3, text: ' Bye.' }] });
    const txt = await asr('task=transcribe&language=en');
    expect(txt.headers.get('content-disposition')).toBe('attachment; filename="talk.wav.txt"');
    expect(txt.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await txt.text()).toBe('Hello.\nBye.\n');
    expect(engine.requests[0]).toMatchObject({ path: '/asr', query: { task: 'transcribe', language: 'en' }, file: { field: 'audio_file', filename: 'talk.wav' } });
    expect(await (await asr('output=tsv')).text()).toBe('start\tend\ttext\n0\t1500\tHello.\n1500\t3000\tBye.\n');
    const json = (await (await asr('output=json&word_timestamps=true')).json()) as Record<string, unknown>;
    expect(json).toMatchObject({ text: ' Hello.  Bye.', language: 'en', segments: [{ id: 0, start: 0, end: 1.5, avg_logprob: expect.any(Number), words: [{ word: ' Hello.' }] }, { id: 1 }] });
    expect((await asr('output=docx')).status).toBe(422);
    expect((await fetch(`${engine.url}/asr`, { method: 'POST', body: upload({}) })).status).toBe(422);
  });

  it('diarizes like WhisperX when asked: speakers on segments and words', async () => {
    engine.respondWith({ segments: [{ id: 0, start: 0, end: 1, text: 'Hi.' }, { id: 1, start: 1, end: 2, text: 'Hello.' }] });
    const json = (await (await asr('output=json&diarize=true&min_speakers=1&max_speakers=2')).json()) as { segments: Array<{ speaker: string }>; word_segments: unknown };
    expect(json.segments.map((s) => s.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    expect(json.word_segments).toEqual([expect.objectContaining({ word: ' Hi.', speaker: 'SPEAKER_00' }), expect.objectContaining({ word: ' Hello.', speaker: 'SPEAKER_01' })]);
  });

  it('POST /detect-language answers the language name, code and confidence', async () => {
    expect(await (await fetch(`${engine.url}/detect-language`, { method: 'POST', body: asrForm() })).json()).toEqual({ detected_language: 'english', language_code: 'en', confidence: 0.97 });
    engine.detectLanguageWith({ language_code: 'fr', confidence: 0.5 });
    expect(await (await fetch(`${engine.url}/detect-language?encode=true`, { method: 'POST', body: asrForm() })).json()).toEqual({ detected_language: 'french', language_code: 'fr', confidence: 0.5 });
  });
});

describe('parseMultipart', () => {
  const body = (parts: string[], boundary = 'XyZ') => Buffer.from(`${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}--${boundary}--\r\n`);

  it('separates fields and files, keeping binary content intact', () => {
    const parsed = parseMultipart(
      body([
        'Content-Disposition: form-data; name="model"\r\n\r\nwhisper-1',
        'Content-Disposition: form-data; name="file"; filename="a b.wav"\r\nContent-Type: audio/wav\r\n\r\nline1\r\nline2',
      ]),
      'multipart/form-data; boundary=XyZ',
    );
    expect(parsed.fields).toEqual({ model: 'whisper-1' });
    expect(parsed.files).toHaveLength(1);
    expect(parsed.files[0]).toMatchObject({ field: 'file', filename: 'a b.wav', contentType: 'audio/wav', size: 12 });
    expect(parsed.files[0].data.toString()).toBe('line1\r\nline2');
  });

  it('accepts a quoted boundary', () => {
    const parsed = parseMultipart(body(['Content-Disposition: form-data; name="x"\r\n\r\n1'], 'a:b'), 'multipart/form-data; boundary="a:b"');
    expect(parsed.fields).toEqual({ x: '1' });
  });

  it.each([
    ['multipart/form-data', 'without boundary'],
    ['multipart/form-data; boundary=other', 'has no boundary'],
  ])('rejects %s', (type, message) => {
    expect(() => parseMultipart(body(['Content-Disposition: form-data; name="x"\r\n\r\n1']), type)).toThrow(message);
  });
});
