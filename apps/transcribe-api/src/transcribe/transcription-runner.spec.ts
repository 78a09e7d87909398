import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError, type EngineClient } from '../engines/engine-client';
import type { EnginesService } from '../engines/engines.service';
import { EngineNotConfiguredError, TranscriptionRunner, UploadMissingError } from './transcription-runner';

describe('TranscriptionRunner', () => {
  let dir: string;
  const transcribe = jest.fn();
  const engines = (configured: boolean) =>
    ({ client: () => (configured ? ({ transcribe } as unknown as EngineClient) : undefined), model: () => 'whisper-1' }) as unknown as EnginesService;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-'));
    await writeFile(join(dir, 'a.upload'), 'RIFF');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  beforeEach(() => transcribe.mockReset());

  const upload = (name: string) => ({ path: join(dir, name), filename: 'talk.wav', size: 4, mediaType: 'audio/wav' });

  it('shapes the engine answer with the task and the engine in the metadata', async () => {
    transcribe.mockResolvedValue({ text: 'Hello.', language: 'en', duration: 1.5, segments: [] });
    const out = await new TranscriptionRunner(engines(true)).run('whisper', upload('a.upload'), { language: 'fr', task: 'translate' });
    expect(transcribe).toHaveBeenCalledWith(expect.objectContaining({ filename: 'talk.wav' }), expect.objectContaining({ language: 'fr', task: 'translate' }));
    expect(out).toMatchObject({ text: 'Hello.', engine: 'whisper', model: 'whisper-1', metadata: { task: 'translate', service: 'whisper', file_size: 4, language: 'en' } });
  });

  it('says the upload is missing (and how processes must share DATA_DIR) instead of blaming the engine', async () => {
    // What the engine client reports when it cannot open the file.
    transcribe.mockRejectedValue(new EngineError('engine faster-whisper at http://engine is unreachable (ENOENT)', false));
    const err = await new TranscriptionRunner(engines(true)).run('faster-whisper', upload('gone.upload'), { language: null }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadMissingError);
    expect((err as Error).message).toMatch(/no longer on disk .* must mount the same DATA_DIR/);
  });

  it('passes an engine failure on as it is while the upload is on disk', async () => {
    const failure = new EngineError('engine whisper answered HTTP 500', true, 500);
    transcribe.mockRejectedValue(failure);
    await expect(new TranscriptionRunner(engines(true)).run('whisper', upload('a.upload'), { language: null })).rejects.toBe(failure);
  });

  it('refuses an engine without URL', async () => {
    await expect(new TranscriptionRunner(engines(false)).run('whisper', upload('a.upload'), { language: null })).rejects.toBeInstanceOf(EngineNotConfiguredError);
  });
});
