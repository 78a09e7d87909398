import { estimateWaitSeconds, expiryOf, isEngineName, progressOf, QUEUES, realTimeFactorOf, statusMessage, toJobRecord, type JobSnapshot } from './job-record';

const snapshot = (over: Partial<JobSnapshot>): JobSnapshot => ({
  input: {
    job_id: 'j1',
    engine: 'whisper',
    language: 'fr',
    filename: 'a.wav',
    file_size: 3,
    media_type: 'audio/wav',
    file_path: '/x',
    created_at: '2026-01-01T00:00:00.000Z',
  },
  status: 'queued',
  startedAt: null,
  endedAt: null,
  result: null,
  error: null,
  position: 3,
  attempts: 0,
  ...over,
});

describe('toJobRecord', () => {
  it('describes a queued job with its position and queue, without exposing the file path', () => {
    const r = toJobRecord(snapshot({}));
    expect(r).toMatchObject({ job_id: 'j1', status: 'queued', queue_name: 'transcription', queue_position: 3, language: 'fr', task: 'transcribe', started_at: null, result: null, error: null });
    expect(r.message).toMatch(/behind 3 job/);
    expect(toJobRecord(snapshot({ position: 0 })).message).toMatch(/behind 0 job/);
    expect(toJobRecord(snapshot({ input: { ...snapshot({}).input, task: 'translate' } })).task).toBe('translate');
    expect(JSON.stringify(r)).not.toContain('file_path');
  });

  it('shows the result only when finished and the error only when failed', () => {
    const result = { text: 'hi', language: 'en', duration: 2.5, segments: [] } as never;
    const finished = toJobRecord(snapshot({ status: 'finished', result, startedAt: new Date(0), endedAt: new Date(1000), position: null }));
    expect(finished).toMatchObject({ status: 'finished', result, audio_duration: 2.5, language: 'en', ended_at: '1970-01-01T00:00:01.000Z', queue_position: null });
    const failed = toJobRecord(snapshot({ status: 'failed', error: 'engine down', result, position: null }));
    expect(failed).toMatchObject({ status: 'failed', error: 'engine down', result: null });
    expect(failed.message).toMatch(/engine down/);
  });
});

describe('estimateWaitSeconds', () => {
  it('is zero for the next job while a worker is free, and grows with the jobs ahead, shared among workers', () => {
    expect(estimateWaitSeconds(0, 0, 1, 10, QUEUES.whisper)).toBe(0);
    expect(estimateWaitSeconds(2, 0, 1, 10, QUEUES.whisper)).toBe(20);
    expect(estimateWaitSeconds(2, 0, 2, 10, QUEUES.whisper)).toBe(10);
    expect(estimateWaitSeconds(1, 0, 2, 10, QUEUES.whisper)).toBe(0); // the second worker is free
  });
  it('counts the jobs already running: they hold the slots first', () => {
    expect(estimateWaitSeconds(0, 1, 1, 10, QUEUES.whisper)).toBe(10);
    expect(estimateWaitSeconds(0, 1, 2, 10, QUEUES.whisper)).toBe(0);
    expect(estimateWaitSeconds(1, 2, 2, 10, QUEUES.whisper)).toBe(10); // both slots free after one job: one for the job ahead, one for this
    expect(estimateWaitSeconds(2, 2, 2, 10, QUEUES.whisper)).toBe(20);
  });
  it('falls back to the engine default without history, and copes with no worker', () => {
    expect(estimateWaitSeconds(1, 0, 0, null, QUEUES['faster-whisper'])).toBe(45);
    expect(estimateWaitSeconds(1, 0, 1, null, QUEUES.whisper)).toBe(180);
  });
});

it('isEngineName accepts only the two engines', () => {
  expect(isEngineName('whisper')).toBe(true);
  expect(isEngineName('faster-whisper')).toBe(true);
  expect(isEngineName('openai')).toBe(false);
  expect(isEngineName(undefined)).toBe(false);
});

describe('progress and expiry', () => {
  const started = new Date('2026-01-01T00:00:00Z');
  it.each([
    // audio s, rtf, elapsed s → total, remaining, percent
    [600, 0.1, 30, 60, 30, 50],
    [600, 0.1, 90, 60, 0, 99],
    [null, 0.1, 30, null, null, null],
    [600, null, 30, null, null, null],
  ])('audio %s s at factor %s after %s s', (audio, rtf, elapsed, total, remaining, percent) => {
    expect(progressOf(started, audio, rtf, started.getTime() + elapsed * 1000)).toEqual({
      elapsed_seconds: elapsed,
      audio_seconds: audio,
      real_time_factor: rtf,
      estimated_total_seconds: total,
      estimated_remaining_seconds: remaining,
      percent,
    });
  });

  it('expires an unread record a TTL after its end, a read one the shorter TTL after the first read', () => {
    const ended = new Date('2026-01-01T00:00:00Z');
    const ttl = { ttlSeconds: 3600, readTtlSeconds: 600 };
    expect(expiryOf(null, null, ttl)).toBeNull();
    expect(expiryOf(ended, null, ttl)?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(expiryOf(ended, new Date('2026-01-01T00:05:00Z'), ttl)?.toISOString()).toBe('2026-01-01T00:15:00.000Z');
    expect(expiryOf(ended, new Date('2026-01-01T00:55:00Z'), ttl)?.toISOString()).toBe('2026-01-01T01:00:00.000Z');
  });

  it('measures the real-time factor over results with a duration', () => {
    expect(realTimeFactorOf([])).toBeNull();
    expect(realTimeFactorOf([{ processing_time: 5, duration: 50 }, { processing_time: 3, duration: 10 }, null, { processing_time: 1, duration: null }])).toBeCloseTo(0.2);
  });

  it('says what a cancelled job means', () => {
    expect(statusMessage({ status: 'cancelled', position: null, error: null, engine: 'whisper' })).toMatch(/cancelled/);
  });
});
