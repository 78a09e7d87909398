import { deleteKeysByPrefix, testServices, uniqueSuffix } from '@platform/testing';
import { CANCELLED, QUEUES, type JobInput, type TranscriptionResult } from '../transcription/job-record';
import { BullmqTranscriptionQueue } from './bullmq-queue';

const { redisUrl } = testServices();

const input = (id: string): JobInput => ({
  job_id: id,
  engine: 'whisper',
  language: null,
  filename: `${id}.wav`,
  file_size: 10,
  media_type: 'audio/wav',
  file_path: `/tmp/${id}.upload`,
  created_at: new Date().toISOString(),
});

const result: TranscriptionResult = {
  text: 'kept for a second',
  language: 'en',
  duration: 1,
  segments: [],
  engine: 'whisper',
  model: 'm',
  processing_time: 0.01,
  metadata: { filename: 'f', file_size: 1, media_type: 'audio/wav', processing_time: 0.01, language: 'en', task: 'transcribe', service: 'whisper' },
};

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// Without Redis (the test setup says so in one line) the in-memory adapter's spec covers retention.
(redisUrl ? describe : describe.skip)('BullmqTranscriptionQueue on Redis', () => {
  const prefix = `test-${uniqueSuffix()}`;
  afterAll(() => deleteKeysByPrefix(redisUrl!, `${prefix}:`, [0, 1]));

  let clock = Date.now();
  const queues: BullmqTranscriptionQueue[] = [];
  const open = (ttlSeconds = 60, readTtlSeconds = 10) => {
    const q = new BullmqTranscriptionQueue(QUEUES.whisper, {
      redisUrl: redisUrl!,
      prefix: `${prefix}-${queues.length}`,
      ttlSeconds,
      readTtlSeconds,
      now: () => clock,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      maxStalledCount: 1,
    });
    queues.push(q);
    return q;
  };
  afterAll(() => Promise.all(queues.map((q) => q.close())));
  beforeEach(() => {
    clock = Date.now(); // BullMQ stamps the end of a job by the system clock
  });

  it('keeps an ended job TRANSCRIBE_RESULT_TTL_SECONDS by the clock, a read one TRANSCRIBE_READ_RESULT_TTL_SECONDS after the first read', async () => {
    const queue = open(60, 10);
    queue.startWorker(async () => result, { concurrency: 1 });
    await queue.add(input('unread'));
    await queue.add(input('read'));
    await until(async () => (await queue.get('read'))?.status === 'finished' && (await queue.get('unread'))?.status === 'finished', 'the jobs to finish');
    expect((await queue.stats()).finished).toBe(2);
    expect(await queue.realTimeFactor()).toBeCloseTo(0.01);
    // Both jobs ended (by the system clock) before now: the test's clock starts here, so the steps
    // below count from after their end however long a loaded machine took to run them.
    clock = Date.now();
    await queue.markRead('read');
    const first = (await queue.get('read'))!.readAt!.getTime();
    expect(first).toBe(clock);
    clock += 5_000;
    await queue.markRead('read'); // only the first read counts
    expect((await queue.get('read'))!.readAt!.getTime()).toBe(first);
    await queue.sweep();
    expect(await queue.get('read')).not.toBeNull();
    clock += 5_000;
    await queue.sweep();
    expect(await queue.get('read')).toBeNull();
    expect(await queue.get('unread')).toMatchObject({ status: 'finished' });
    clock += 51_000; // 61 s after both jobs had ended: more than the 60 s TTL
    await queue.sweep();
    expect(await queue.get('unread')).toBeNull();
    expect((await queue.stats()).finished).toBe(0);
  });

  it('cancels a queued job (a tombstone remains), a running one through the worker, deletes an ended one, and lists them', async () => {
    const queue = open();
    const seen: AbortSignal[] = [];
    queue.startWorker(
      (job, ctx) =>
        new Promise((resolve, reject) => {
          if (job.job_id === 'quick') return resolve(result);
          seen.push(ctx.signal);
          ctx.signal.addEventListener('abort', () => reject(new Error('engine request aborted')));
        }),
      { concurrency: 1 },
    );
    await queue.add(input('long'));
    await until(async () => (await queue.get('long'))?.status === 'started', 'the long job to start');
    await queue.add(input('waiting'));
    await expect(queue.cancel('waiting')).resolves.toMatchObject({ outcome: 'cancelled', was: 'queued' });
    expect(await queue.get('waiting')).toMatchObject({ status: 'cancelled' });
    await expect(queue.cancel('long')).resolves.toMatchObject({ outcome: 'cancelled', was: 'started' });
    await until(async () => seen[0]?.aborted === true, 'the worker to abort the running job');
    expect(seen[0].reason).toBe(CANCELLED);
    await until(async () => (await queue.get('long'))?.status === 'cancelled' && (await queue.stats()).started === 0, 'the job to end cancelled');
    await queue.add(input('quick'));
    await until(async () => (await queue.get('quick'))?.status === 'finished', 'the quick job');
    expect((await queue.list(['cancelled'])).map((s) => s.input.job_id).sort()).toEqual(['long', 'waiting']);
    expect((await queue.list(['finished'])).map((s) => s.input.job_id)).toEqual(['quick']);
    expect(await queue.list([])).toHaveLength(3);
    await expect(queue.cancel('quick')).resolves.toMatchObject({ outcome: 'deleted', was: 'finished' });
    await expect(queue.cancel('waiting')).resolves.toMatchObject({ outcome: 'deleted', was: 'cancelled' });
    expect(await queue.get('quick')).toBeNull();
    expect(await queue.get('waiting')).toBeNull();
    await expect(queue.cancel('never')).resolves.toBeNull();
  });
});
