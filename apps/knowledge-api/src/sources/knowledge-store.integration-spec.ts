// KnowledgeStore's document_storage: page-aligned batches, STORE_CONCURRENCY of them at once (each
// in its own transaction), every batch's log line numbered as in the crawl's order; the first
// failure (a cancel here) stops new batches from starting and is thrown, the batches that ran are
// stored whole. A failing insert: crawl.integration-spec.ts (the old chunks stay searchable).
import { createTestApp, type TestApp } from '@platform/testing';
import type { KnowledgeApiConfig } from '../config';
import type { PhaseStatus } from '../progress/progress-phases';
import { knowledgeApiService } from '../service';
import { KnowledgeStore, STORE_CONCURRENCY } from './knowledge-store.service';
import { SourcesRepository } from './sources.repository';
import type { NewChunk, SourceInput } from './sources.types';

const pages = (n: number, word: string) =>
  Array.from({ length: n }, (_, i) => ({ url: `https://store.example.com/p/${i}`, title: `Page ${i}`, markdown: `# Page ${i}\n\n${word} number ${i} of the store test.` }));

const source = (id: string): SourceInput => ({
  source_id: id,
  title: id,
  description: '',
  source_type: 'url',
  url: `https://${id}/`,
  knowledge_type: 'technical',
  tags: [],
  update_frequency: 0,
  max_depth: 1,
});

describe('KnowledgeStore batches (integration)', () => {
  let t: TestApp<KnowledgeApiConfig>;
  let store: KnowledgeStore;
  let repo: SourcesRepository;

  beforeAll(async () => {
    t = await createTestApp(knowledgeApiService, { CRAWL_POLL_MS: '60000' });
    store = t.app.get(KnowledgeStore);
    repo = t.app.get(SourcesRepository);
  });
  afterAll(() => t?.close());
  afterEach(() => jest.restoreAllMocks());

  it(`stores every batch, ${STORE_CONCURRENCY} at once at most, with log lines in the crawl's numbering`, async () => {
    const insert = repo.insertChunks.bind(repo);
    let running = 0;
    let most = 0;
    let bothIn: () => void = () => undefined;
    const overlap = new Promise<void>((resolve) => (bothIn = resolve));
    jest.spyOn(repo, 'insertChunks').mockImplementation(async (id: string, rows: NewChunk[]) => {
      most = Math.max(most, ++running);
      if (running === STORE_CONCURRENCY) bothIn();
      // the first batch holds its transaction until the second is in its own (or, were they run one
      // at a time, until a long wait ends: then `most` says so)
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([overlap, new Promise((r) => (timer = setTimeout(r, 10_000)))]);
      clearTimeout(timer);
      try {
        return await insert(id, rows);
      } finally {
        running--;
      }
    });
    const logs: string[] = [];
    const result = await store.store(source('store-a.example.com'), pages(230, 'alphastore'), {
      onlyChanged: true,
      phase: async (_p: PhaseStatus, _f: number, _patch?: unknown, log?: string) => void (log && logs.push(log)),
    });
    expect(result).toMatchObject({ chunksStored: 230, pagesChanged: 230 });
    expect(await repo.countChunks('store-a.example.com')).toBe(230);
    expect(logs.filter((l) => l.startsWith('Batch '))).toEqual([
      'Batch 1/5: Processing items 1-50 of 230',
      'Batch 2/5: Processing items 51-100 of 230',
      'Batch 3/5: Processing items 101-150 of 230',
      'Batch 4/5: Processing items 151-200 of 230',
      'Batch 5/5: Processing items 201-230 of 230',
    ]);
    expect(most).toBe(STORE_CONCURRENCY);
  });

  it('stops starting batches at the first failure (here a cancel seen as batch 2 starts), throws it, and keeps the batches that ran whole', async () => {
    const insert = repo.insertChunks.bind(repo);
    let cancelled: () => void = () => undefined;
    const cancelSeen = new Promise<void>((resolve) => (cancelled = resolve));
    const inserted: string[] = [];
    jest.spyOn(repo, 'insertChunks').mockImplementation(async (id: string, rows: NewChunk[]) => {
      await cancelSeen; // batch 1 goes on only after batch 2 failed
      inserted.push(rows[0].url);
      return insert(id, rows);
    });
    const phase = async (_p: PhaseStatus, _f: number, _patch?: unknown, log?: string) => {
      if (log?.startsWith('Batch 2/')) {
        cancelled();
        throw new Error('Crawl cancelled');
      }
    };
    await expect(store.store(source('store-b.example.com'), pages(200, 'betastore'), { onlyChanged: true, phase })).rejects.toThrow('Crawl cancelled');
    expect(inserted).toEqual(['https://store.example.com/p/0']); // batches 3 and 4 never started
    const urls = await repo.pageUrls('store-b.example.com');
    expect(urls).toHaveLength(50);
    expect(urls).toContain('https://store.example.com/p/49');
    expect(urls).not.toContain('https://store.example.com/p/50');
  });
});
