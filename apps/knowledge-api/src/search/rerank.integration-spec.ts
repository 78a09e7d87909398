// Reranking against a fake rerank server (libs/testing fakes/rerank-api.ts), in both shapes
// servers answer (Cohere/Jina `…/v1/rerank`, text-embeddings-inference `/rerank`), and what a
// failing reranker leaves (the unreranked order with a note).
import { createTestApp, fakeRerankScore, startFakeRerankApi, type FakeRerankApi, type TestApp } from '@platform/testing';
import type { KnowledgeApiConfig } from '../config';
import { knowledgeApiService } from '../service';

describe('reranking (integration)', () => {
  let t: TestApp<KnowledgeApiConfig>;
  let fake: FakeRerankApi;
  const query = 'otter river habitat';

  beforeAll(async () => {
    fake = await startFakeRerankApi();
    t = await createTestApp(knowledgeApiService, { RERANK_URL: fake.url, RERANK_MODEL: 'fake-rerank', RERANK_API_KEY: 'rerank-secret', RERANK_TIMEOUT_MS: '300' });
    for (const [name, text] of [
      // full-text ranks the repeated word first; the fake reranker ranks by how many query words a text has
      ['otters.md', '# Otters\n\nOtter otter otter otter otter facts.'],
      ['habitat.md', '# Habitat\n\nThe otter lives by the river: its habitat is the river bank.'],
      ['rivers.md', '# Rivers\n\nA river habitat shelters many animals, the otter too.'],
    ]) {
      await t.http.post('/api/documents/upload').attach('file', Buffer.from(text), name).expect(200);
    }
  });

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('answers the candidates in the reranker’s order with its scores, sending model, key and query', async () => {
    const res = await t.http.post('/api/rag/query').send({ query: 'otter', match_count: 2 }).expect(200);
    expect(res.body.reranked).toBe(true);
    const last = fake.requests[fake.requests.length - 1];
    expect(last).toMatchObject({ path: '/v1/rerank', query: 'otter', model: 'fake-rerank', authorization: 'Bearer rerank-secret' });
    expect(last.documents).toHaveLength(3); // 2 × match_count candidates asked for, 3 exist
    expect(res.body.results).toHaveLength(2);

    const full = await t.http.post('/api/rag/query').send({ query, match_count: 3 }).expect(200);
    const scores = full.body.results.map((r: { content: string; similarity_score: number }) => r.similarity_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const r of full.body.results as Array<{ title: string; content: string; similarity_score: number }>) {
      expect(r.similarity_score).toBeCloseTo(fakeRerankScore(query, `${r.title}\n\n${r.content}`), 5);
    }
    expect((await t.http.get('/api/health').expect(200)).body.reranking).toEqual({ configured: true, endpoint: `${fake.url}/rerank` });
  });

  it('reranks code examples too, and keeps the unreranked order with a note when the reranker fails', async () => {
    fake.mode = 'fail';
    const res = await t.http.post('/api/rag/query').send({ query: 'otter' }).expect(200);
    expect(res.body).toMatchObject({ reranked: false, search_mode: 'full_text' });
    expect(res.body.note).toMatch(/reranking skipped: rerank server answered 503/);
    expect(res.body.results.length).toBeGreaterThan(0);
    fake.mode = 'ok';
  });

  it('speaks the text-embeddings-inference shape at an URL ending in /rerank', async () => {
    const tei = await createTestApp(knowledgeApiService, { RERANK_URL: `${fake.origin}/rerank`, DATABASE_URL: t.database!.url, DATABASE_SCHEMA: t.database!.schema });
    try {
      const res = await tei.http.post('/api/rag/query').send({ query, match_count: 3 }).expect(200);
      expect(res.body.reranked).toBe(true);
      expect(fake.requests[fake.requests.length - 1].path).toBe('/rerank');
      expect(res.body.results[0].similarity_score).toBe(1);
    } finally {
      await tei.close();
    }
  });

  it('says there is no reranking without RERANK_URL', async () => {
    const plain = await createTestApp(knowledgeApiService, { DATABASE_URL: t.database!.url, DATABASE_SCHEMA: t.database!.schema });
    try {
      expect((await plain.http.post('/api/rag/query').send({ query: 'otter' }).expect(200)).body.reranked).toBe(false);
      expect((await plain.http.get('/api/health').expect(200)).body.reranking.configured).toBe(false);
    } finally {
      await plain.close();
    }
  });
});
