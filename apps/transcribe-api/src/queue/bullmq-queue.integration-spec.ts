import { deleteKeysByPrefix, testServices, uniqueSuffix } from '@platform/testing';
import { QUEUES, type JobInput, type TranscriptionResult } from '../jobs/job-record';
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

  it('keeps an ended job for TRANSCRIBE_RESULT_TTL_SECONDS, then forgets it', async () => {
    const queue = new BullmqTranscriptionQueue(QUEUES.whisper, {
      redisUrl: redisUrl!,
      prefix,
      ttlSeconds: 1,
      lockDurationMs: 30_000,
      stalledIntervalMs: 30_000,
      maxStalledCount: 1,
    });
    try {
      queue.startWorker(async () => result, { concurrency: 1 });
      await queue.add(input('short-lived'));
      await until(async () => (await queue.get('short-lived'))?.status === 'finished', 'the job to finish');
      expect(await queue.get('short-lived')).toMatchObject({ status: 'finished', result: { text: 'kept for a second' } });
      expect((await queue.stats()).finished).toBe(1);
      // no other job ends to trigger BullMQ's own age check: the periodic sweep removes it
      await until(async () => (await queue.get('short-lived')) === null, 'the record to expire');
      expect((await queue.stats()).finished).toBe(0);
    } finally {
      await queue.close();
    }
  });
});
