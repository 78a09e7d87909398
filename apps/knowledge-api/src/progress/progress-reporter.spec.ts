import type { KnowledgeApiConfig } from '../config';
import type { RealtimeEvents } from '../realtime/realtime-events';
import type { ProgressPayload } from './progress-payload';
import type { CrawlGateway, RootGateway } from './progress.gateways';
import type { ProgressRepository } from './progress.repository';
import { EMIT_EVERY_MS, ProgressService } from './progress.service';
import type { ProgressRow } from './progress.types';

/**
 * ProgressReporter's events: a phase change, a log line and the end leave at once and in order; a
 * counter-only step (a page fetched) within EMIT_EVERY_MS of the last event is held back and the
 * latest one is sent when the interval ends. Fake timers drive the clock.
 */
describe('ProgressReporter events', () => {
  let emitted: ProgressPayload[];
  let writes: number;

  function reporter() {
    emitted = [];
    writes = 0;
    const repo = {
      update: async (_id: string, _attempt: number, patch: { percentage: number }) => {
        writes++;
        return { cancelRequested: false, percentage: patch.percentage };
      },
    } as unknown as ProgressRepository;
    const room = { to: () => ({ emit: (_event: string, payload: ProgressPayload) => emitted.push(payload) }) };
    const service = new ProgressService(
      { CRAWL_LEASE_SECONDS: 60 } as KnowledgeApiConfig,
      repo,
      { server: room } as unknown as CrawlGateway,
      { server: null } as unknown as RootGateway,
      { log: () => undefined } as unknown as RealtimeEvents,
    );
    const row = { progress_id: '00000000-0000-4000-8000-000000000001', kind: 'crawl', status: 'queued', percentage: 0, state: {}, logs: [], attempts: 1, start_time: new Date() } as unknown as ProgressRow;
    return service.reporter(row);
  }

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('holds back counter-only steps within the interval and sends the latest when it ends', async () => {
    const r = reporter();
    await r.phase('crawling', 0, { totalPages: 10, processedPages: 0 }, 'Crawling 10 pages');
    expect(emitted.map((e) => e.processedPages)).toEqual([0]);
    for (let i = 1; i <= 4; i++) await r.phase('crawling', i / 10, { processedPages: i, currentUrl: `https://x.dev/${i}` });
    expect(emitted).toHaveLength(1); // the four steps came within the interval
    await jest.advanceTimersByTimeAsync(EMIT_EVERY_MS);
    expect(emitted).toHaveLength(2);
    expect(emitted[1]).toMatchObject({ status: 'crawling', processedPages: 4, currentUrl: 'https://x.dev/4', percentage: 13 });
    // nothing held back: no further event
    await jest.advanceTimersByTimeAsync(EMIT_EVERY_MS * 3);
    expect(emitted).toHaveLength(2);
    // a step after the interval leaves at once
    await r.phase('crawling', 0.5, { processedPages: 5 });
    expect(emitted.map((e) => e.processedPages)).toEqual([0, 4, 5]);
  });

  it('sends a phase change, a log line and the end at once, in order, and nothing held back after the end', async () => {
    const r = reporter();
    await r.phase('crawling', 0, { totalPages: 3, processedPages: 0 }, 'Crawling');
    await r.phase('crawling', 1 / 3, { processedPages: 1 }); // held back
    await r.log('Skipped https://x.dev/2: HTTP 404'); // at once, with the count held back
    expect(emitted.map((e) => [e.log, e.processedPages])).toEqual([
      ['Crawling', 0],
      ['Skipped https://x.dev/2: HTTP 404', 1],
    ]);
    await r.phase('crawling', 2 / 3, { processedPages: 2 }); // held back
    await r.phase('processing', 0, { processedPages: 3 }); // another phase: at once
    await r.complete({ chunksStored: 3 }, 'Crawl completed');
    await jest.advanceTimersByTimeAsync(EMIT_EVERY_MS * 3);
    expect(emitted.map((e) => e.status)).toEqual(['crawling', 'crawling', 'processing', 'completed']);
    expect(emitted.map((e) => e.percentage)).toEqual([...emitted.map((e) => e.percentage)].sort((a, b) => a - b));
    expect(emitted.at(-1)).toMatchObject({ status: 'completed', percentage: 100, chunksStored: 3 });
    expect(writes).toBeGreaterThanOrEqual(4);
  });
});
