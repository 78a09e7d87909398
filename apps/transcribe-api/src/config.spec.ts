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
});
