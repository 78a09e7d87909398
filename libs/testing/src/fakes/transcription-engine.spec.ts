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
    engine.reset();
    expect((await post(upload({ model: 'whisper-1' }, { name: 'a.mp3', data: 'x' }))).status).toBe(200);
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
