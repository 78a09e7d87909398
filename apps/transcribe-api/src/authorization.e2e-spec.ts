import type { AddressInfo } from 'node:net';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, makeWav, operationsOf, startFakeTranscriptionEngine, type MatrixRow, type MatrixSetup } from '@platform/testing';
import { transcribeApiService } from './service';

/**
 * Spec 002, part D: "the endpoints have no authentication (internal network only)". Every operation
 * is public: a credential changes nothing (none and a made-up bearer token get the same answer), the
 * client's Authorization header never replaces the engine's key on the way to the engine (the engine
 * below refuses any other, which would turn the answer into a 502), and the engine's key never shows
 * in an answer. There are no tenants or roles, so `otherTenant` and `lesserRole` do not apply.
 */

const ENGINE_KEY = 'sk-matrix-engine-key-0b1c2d3e';
const wav = makeWav({ seconds: 0.2 });

interface Ctx {
  jobId: string;
  /** one job per DELETE (a second DELETE of the same job removes its record) */
  jobsToDelete: string[];
}

/** A multipart body with one file part and text fields. */
function multipart(fileField: string, fields: Record<string, string> = {}): { rawBody: Buffer; headers: Record<string, string> } {
  const boundary = '----authorization-matrix';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`));
  parts.push(wav, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { rawBody: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function setup(): Promise<MatrixSetup<Ctx>> {
  const engine = await startFakeTranscriptionEngine({ apiKey: ENGINE_KEY });
  const t = await createTestApp(transcribeApiService, { FASTER_WHISPER_URL: engine.url, FASTER_WHISPER_API_KEY: ENGINE_KEY });
  try {
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const submit = async () => (await t.http.post('/transcribe/async').attach('file', wav, 'a.wav').expect(200)).body.job_id as string;
    const jobId = await submit();
    const document = await fetchDocument(baseUrl);
    return {
      baseUrl,
      operations: operationsOf(document),
      document,
      callers: { wrong: { Authorization: 'Bearer not-a-key-of-anything' }, otherTenant: {}, lesserRole: {} },
      secrets: [ENGINE_KEY],
      ctx: { jobId, jobsToDelete: [await submit(), await submit()] },
      close: async () => {
        await t.close();
        await engine.close();
      },
    };
  } catch (err) {
    await t.close();
    await engine.close();
    throw err;
  }
}

/** Public and the same for everybody: no credential and a made-up one get `status`. */
const open = (status: number, request: MatrixRow<Ctx>['request']): MatrixRow<Ctx> => ({
  public: true,
  note: 'no authentication (spec 002, part D); no tenants or roles',
  request,
  expect: { none: status, wrong: status },
});

describeAuthorizationMatrix<Ctx>('transcribe-api', setup, {
  'GET /': open(200, () => ({ path: '/' })),
  'GET /health': open(200, () => ({ path: '/health' })),
  'POST /transcribe': open(200, () => ({ path: '/transcribe', ...multipart('file', { language: 'en' }) })),
  'POST /transcribe/async': open(200, () => ({ path: '/transcribe/async', ...multipart('file') })),
  'GET /transcribe/status/{job_id}': open(200, (ctx) => ({ path: `/transcribe/status/${ctx.jobId}` })),
  'GET /transcribe/jobs': open(200, () => ({ path: '/transcribe/jobs' })),
  'DELETE /transcribe/jobs/{job_id}': open(200, (ctx) => ({ path: `/transcribe/jobs/${ctx.jobsToDelete.shift()}` })),
  'POST /asr': open(200, () => ({ path: '/asr?output=txt', ...multipart('audio_file') })),
  'POST /detect-language': open(200, () => ({ path: '/detect-language', ...multipart('audio_file') })),
  'GET /queue/stats': open(200, () => ({ path: '/queue/stats' })),
});
