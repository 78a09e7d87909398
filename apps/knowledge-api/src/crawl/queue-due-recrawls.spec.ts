import type { ProgressService } from '../progress/progress.service';
import type { CrawlRequest, ProgressRow } from '../progress/progress.types';
import type { SourcesService } from '../sources/sources.service';
import type { SourceRow } from '../sources/sources.types';
import { QueueDueRecrawls } from './queue-due-recrawls';

function source(id: string, patch: Partial<SourceRow> = {}): SourceRow {
  return {
    source_id: id,
    title: id,
    description: '',
    source_type: 'url',
    url: `https://${id}/docs`,
    knowledge_type: 'technical',
    tags: ['docs'],
    status: 'active',
    update_frequency: 3,
    max_depth: 4,
    next_crawl_at: null,
    total_word_count: 0,
    created_at: new Date(0),
    last_updated: new Date(0),
    ...patch,
  };
}

/** The use case over fakes of the two services it spans: due sources in, queued crawls out. */
function setUp(due: SourceRow[], active: string[] = []) {
  const claimed: number[] = [];
  const created: Array<{ request: CrawlRequest; sourceId: string | null }> = [];
  const sources = {
    claimDueRecrawls: async (limit: number) => {
      claimed.push(limit);
      return due;
    },
  } as unknown as SourcesService;
  const progress = {
    activeFor: async (sourceId: string) => (active.includes(sourceId) ? ({ progress_id: 'p', run_state: 'running' } as ProgressRow) : null),
    create: async (_id: string, request: CrawlRequest, sourceId: string | null) => {
      created.push({ request, sourceId });
    },
  } as unknown as ProgressService;
  return { useCase: new QueueDueRecrawls(sources, progress), claimed, created };
}

describe('QueueDueRecrawls', () => {
  it('queues a recrawl of each due source with its stored settings', async () => {
    const { useCase, claimed, created } = setUp([source('a.example'), source('b.example', { knowledge_type: 'business', tags: [] })]);
    await expect(useCase.execute(5)).resolves.toBe(2);
    expect(claimed).toEqual([5]);
    expect(created).toEqual([
      {
        sourceId: 'a.example',
        request: { url: 'https://a.example/docs', knowledge_type: 'technical', tags: ['docs'], update_frequency: 3, max_depth: 4, recrawl: true },
      },
      {
        sourceId: 'b.example',
        request: { url: 'https://b.example/docs', knowledge_type: 'business', tags: [], update_frequency: 3, max_depth: 4, recrawl: true },
      },
    ]);
  });

  it('skips a source whose crawl is queued or running, and one without a URL', async () => {
    const { useCase, created } = setUp([source('busy.example'), source('nourl.example', { url: null }), source('free.example')], ['busy.example']);
    await expect(useCase.execute(5)).resolves.toBe(1);
    expect(created.map((c) => c.sourceId)).toEqual(['free.example']);
  });

  it('fills missing settings with the defaults of a new crawl (7 days, depth 2)', async () => {
    const { useCase, created } = setUp([source('old.example', { update_frequency: null, max_depth: null })]);
    await useCase.execute(1);
    expect(created[0].request).toMatchObject({ update_frequency: 7, max_depth: 2, recrawl: true });
  });

  it('queues nothing when nothing is due', async () => {
    const { useCase, created } = setUp([]);
    await expect(useCase.execute(5)).resolves.toBe(0);
    expect(created).toEqual([]);
  });
});
