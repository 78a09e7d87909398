import type { JobInput, TranscriptionResult } from '../transcription/job-record';
import { CANCELLED, QUEUES } from '../transcription/job-record';
import { InProcessTranscriptionQueue } from './in-process-queue';
import { SHUTDOWN, type JobContext } from './transcription-queue';

const input = (id: string): JobInput => ({
  job_id: id,
  engine: 'faster-whisper',
  language: null,
  filename: `${id}.wav`,
  file_size: 10,
  media_type: 'audio/wav',
  file_path: `/tmp/${id}.upload`,
  created_at: new Date().toISOString(),
});

const result = (text: string): TranscriptionResult => ({
  text,
  language: 'en',
  duration: 1,
  segments: [],
  engine: 'faster-whisper',
  model: 'm',
  processing_time: 0.1,
  metadata: { filename: 'f', file_size: 1, media_type: 'audio/wav', processing_time: 0.1, language: 'en', task: 'transcribe', service: 'faster-whisper' },
});

/** A processor whose jobs the test finishes by hand. */
function controlledProcessor() {
  const pending = new Map<string, { resolve: (r: TranscriptionResult) => void; reject: (e: Error) => void; ctx: JobContext }>();
  const processor = (job: JobInput, ctx: JobContext) =>
    new Promise<TranscriptionResult>((resolve, reject) => {
      pending.set(job.job_id, { resolve, reject, ctx });
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
    });
  return { pending, processor };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('InProcessTranscriptionQueue', () => {
  let queue: InProcessTranscriptionQueue;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const times = (ttlSeconds = 60, readTtlSeconds = 10) => ({ ttlSeconds, readTtlSeconds, now: () => clock });
  beforeEach(() => {
    queue = new InProcessTranscriptionQueue(QUEUES['faster-whisper'], times());
  });
  afterEach(() => queue.close());

  it('keeps jobs queued, with their positions, until a worker starts', async () => {
    await queue.add(input('a'));
    const b = await queue.add(input('b'));
    expect(b).toMatchObject({ status: 'queued', position: 1, attempts: 0 });
    expect(await queue.stats()).toMatchObject({ queue_name: 'faster-whisper-transcription', queued: 2, started: 0, workers: 0 });
    await expect(queue.add(input('a'))).rejects.toThrow(/already exists/);
  });

  it('runs FIFO within the concurrency limit and records results and failures', async () => {
    const { pending, processor } = controlledProcessor();
    for (const id of ['a', 'b', 'c']) await queue.add(input(id));
    queue.startWorker(processor, { concurrency: 2 });
    await flush();
    expect([...pending.keys()]).toEqual(['a', 'b']);
    expect(await queue.stats()).toMatchObject({ queued: 1, started: 2, workers: 1 });
    expect(await queue.get('c')).toMatchObject({ status: 'queued', position: 0 });
    expect(await queue.get('a')).toMatchObject({ status: 'started', attempts: 1, position: null });

    pending.get('a')!.resolve(result('hello'));
    pending.get('b')!.reject(new Error('engine exploded'));
    await flush();
    await flush();
    expect(await queue.get('a')).toMatchObject({ status: 'finished', result: { text: 'hello' }, error: null });
    expect((await queue.get('a'))!.endedAt).toBeInstanceOf(Date);
    expect(await queue.get('b')).toMatchObject({ status: 'failed', error: 'engine exploded', result: null });
    expect(pending.has('c')).toBe(true); // a slot freed: the third job started
    expect(await queue.stats()).toMatchObject({ queued: 0, started: 1, finished: 1, failed: 1 });
    expect(await queue.averageJobSeconds()).toEqual(expect.any(Number));
    pending.get('c')!.resolve(result('c'));
  });

  it('forgets ended jobs after the retention time, read ones sooner', async () => {
    const q = new InProcessTranscriptionQueue(QUEUES.whisper, times(60, 10));
    try {
      q.startWorker(async () => result('x'), { concurrency: 1 });
      await q.add(input('unread'));
      await q.add(input('read'));
      for (let i = 0; i < 4; i++) await flush();
      expect((await q.stats()).finished).toBe(2);
      await q.markRead('read');
      clock += 10_000;
      expect(await q.sweep()).toBe(1);
      expect(await q.get('read')).toBeNull();
      expect(await q.get('unread')).toMatchObject({ status: 'finished', readAt: null });
      clock += 50_000;
      expect(await q.sweep()).toBe(1);
      expect(await q.get('unread')).toBeNull();
      expect((await q.stats()).finished).toBe(0);
    } finally {
      await q.close();
    }
  });

  it('cancels a queued job (out of the line) and a running one (its signal aborted), and deletes an ended one', async () => {
    const { pending, processor } = controlledProcessor();
    for (const id of ['run', 'wait', 'done']) await queue.add(input(id));
    queue.startWorker(processor, { concurrency: 1 });
    await flush();
    await expect(queue.cancel('wait')).resolves.toMatchObject({ outcome: 'cancelled', was: 'queued' });
    expect(await queue.get('done')).toMatchObject({ position: 0 });
    const { ctx } = pending.get('run')!;
    await expect(queue.cancel('run')).resolves.toMatchObject({ outcome: 'cancelled', was: 'started' });
    expect(ctx.signal.reason).toBe(CANCELLED);
    await flush();
    await flush();
    expect(await queue.get('run')).toMatchObject({ status: 'cancelled' });
    expect(await queue.get('wait')).toMatchObject({ status: 'cancelled' });
    expect(pending.has('wait')).toBe(false);
    pending.get('done')!.resolve(result('ok'));
    await flush();
    await flush();
    expect((await queue.list(['cancelled'])).map((s) => s.input.job_id).sort()).toEqual(['run', 'wait']);
    expect((await queue.list([])).length).toBe(3);
    await expect(queue.cancel('done')).resolves.toMatchObject({ outcome: 'deleted', was: 'finished' });
    expect(await queue.get('done')).toBeNull();
    await expect(queue.cancel('nope')).resolves.toBeNull();
  });

  it('measures the real-time factor of finished jobs', async () => {
    queue.startWorker(async () => ({ ...result('x'), processing_time: 2, duration: 10 }), { concurrency: 1 });
    expect(await queue.realTimeFactor()).toBeNull();
    await queue.add(input('a'));
    for (let i = 0; i < 3; i++) await flush();
    expect(await queue.realTimeFactor()).toBeCloseTo(0.2);
  });

  it('aborts running jobs with the shutdown reason on close and records nothing for them', async () => {
    const { pending, processor } = controlledProcessor();
    await queue.add(input('a'));
    queue.startWorker(processor, { concurrency: 1 });
    await flush();
    const { ctx } = pending.get('a')!;
    await queue.close();
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBe(SHUTDOWN);
    expect(await queue.get('a')).toMatchObject({ status: 'started' });
    await expect(queue.add(input('late'))).rejects.toThrow(/closed/);
    await expect(queue.check()).rejects.toThrow(/closed/);
  });
});
