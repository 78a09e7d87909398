import { ConfigValidationError, loadConfig } from '@platform/platform';
import { TranscribeConfig } from './config';

describe('TranscribeConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig(TranscribeConfig, {}, { PORT: 3006, REDIS_KEY_PREFIX: 'transcribe-api:' });
    expect(c).toMatchObject({
      TRANSCRIBE_ROLE: 'all',
      TRANSCRIBE_MAX_UPLOAD_BYTES: 500 * 1024 * 1024,
      TRANSCRIBE_RESULT_TTL_SECONDS: 3600,
      TRANSCRIBE_ENGINE_TIMEOUT_SECONDS: 1800,
      TRANSCRIBE_QUEUE_PREFIX: 'bull',
    });
    expect(c.WHISPER_URL).toBeUndefined();
  });

  it('refuses the api and worker roles without Redis, and bad values, naming each variable', () => {
    let error: unknown;
    try {
      loadConfig(TranscribeConfig, { TRANSCRIBE_ROLE: 'worker', WHISPER_URL: 'ftp://x', TRANSCRIBE_MAX_UPLOAD_BYTES: 'lots' }, { PORT: 3006, REDIS_KEY_PREFIX: 'transcribe-api:' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const message = (error as Error).message;
    expect(message).toMatch(/TRANSCRIBE_ROLE: .*set REDIS_URL/);
    expect(message).toMatch(/WHISPER_URL/);
    expect(message).toMatch(/TRANSCRIBE_MAX_UPLOAD_BYTES/);
    expect(() => loadConfig(TranscribeConfig, { TRANSCRIBE_ROLE: 'worker', REDIS_URL: 'redis://r:6379' }, { PORT: 3006, REDIS_KEY_PREFIX: 'transcribe-api:' })).not.toThrow();
  });

  it('takes an API key and a protocol per engine, and refuses diarization on an OpenAI-compatible engine', () => {
    const env = { WHISPER_PROTOCOL: 'asr', WHISPER_DIARIZATION: 'true', WHISPER_API_KEY: 'sk-1', FASTER_WHISPER_DIARIZATION: 'true' };
    expect(() => loadConfig(TranscribeConfig, env, { PORT: 3006, REDIS_KEY_PREFIX: 'transcribe-api:' })).toThrow(/FASTER_WHISPER_DIARIZATION=true needs FASTER_WHISPER_PROTOCOL=asr/);
    const c = loadConfig(TranscribeConfig, { ...env, FASTER_WHISPER_DIARIZATION: 'false' }, { PORT: 3006, REDIS_KEY_PREFIX: 'transcribe-api:' });
    expect(c).toMatchObject({ WHISPER_PROTOCOL: 'asr', WHISPER_DIARIZATION: true, WHISPER_API_KEY: 'sk-1', FASTER_WHISPER_PROTOCOL: 'openai', WHISPER_SYNC_CONCURRENCY: 1 });
    expect(() => loadConfig(TranscribeConfig, { WHISPER_PROTOCOL: 'grpc' }, { PORT: 3006, REDIS_KEY_PREFIX: 'transcribe-api:' })).toThrow(/WHISPER_PROTOCOL/);
  });
});
