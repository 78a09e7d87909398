// Hybrid search against a fake OpenAI-compatible embeddings server: chunks and queries embedded,
// the vector ranking fused with full-text by reciprocal rank fusion. On a server with pgvector
// (the embedded PGlite: run with TEST_DATABASE_URL pointing nowhere) vectors go to pgvector; on one
// without it (this machine's PostgreSQL) they are real[] and the documented fallback is used.
import { Database } from '@platform/database';
import { createTestApp, testServices, type TestApp } from '@platform/testing';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../test/fake-embeddings';
import type { KnowledgeApiConfig } from '../config';
import { knowledgeApiService } from '../service';

describe('hybrid search (integration)', () => {
  let t: TestApp<KnowledgeApiConfig>;
  let fake: FakeEmbeddings;

  beforeAll(async () => {
    fake = await startFakeEmbeddings({ dimensions: 256 });
    t = await createTestApp(knowledgeApiService, { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embed', EMBEDDINGS_DIMENSIONS: '256' });
    for (const [name, text] of [
      ['solar.md', '# Solar\n\nSolar panels convert sunlight into electricity efficiently.'],
      ['cells.md', '# Cells\n\nElectricity from sunlight: photovoltaic solar cells on the roof.'],
      ['garden.md', '# Garden\n\nSolar gardening tips: tomatoes love full sunlight.'],
      ['unrelated.md', '# Cooking\n\nBake the bread for forty minutes.'],
    ]) {
      await t.http.post('/api/documents/upload').attach('file', Buffer.from(text), name).expect(200);
    }
  });

  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  it('embeds stored chunks and queries with the configured model', () => {
    const inputs = fake.requests.flatMap((r) => r.input);
    expect(fake.requests.every((r) => r.model === 'fake-embed')).toBe(true);
    expect(inputs.some((i) => i.includes('photovoltaic'))).toBe(true);
  });

  it('fuses full-text and vector rankings (RRF), finding what full-text alone does not', async () => {
    const res = await t.http.post('/api/rag/query').send({ query: 'solar electricity sunlight', match_count: 5 }).expect(200);
    expect(res.body.search_mode).toBe('hybrid');
    const ids = res.body.results.map((r: { metadata: { source_id: string } }) => r.metadata.source_id);
    expect(ids.slice(0, 2).sort()).toEqual(['cells.md', 'solar.md']);
    expect(ids).toContain('garden.md'); // lacks "electricity": no full-text match for all three words
    expect(ids).not.toContain('unrelated.md');
    for (const r of res.body.results) {
      expect(r.similarity_score).toBeGreaterThan(0);
      expect(r.similarity_score).toBeLessThanOrEqual(1);
    }
    expect(fake.requests.some((r) => r.input.length === 1 && r.input[0] === 'solar electricity sunlight')).toBe(true);
  });

  it('searches under the HNSW index the migrations made for EMBEDDINGS_DIMENSIONS where pgvector is installed', async () => {
    const db = t.app.get(Database);
    const rows = await db.rows<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexdef ILIKE '%USING hnsw%'`, [db.schema]);
    expect(rows.map((r) => r.indexname)).toEqual(testServices().embedded ? ['chunks_embedding_256_hnsw_idx'] : []);
  });

  it('reports the embeddings server and vector store in the health detail, not in readiness', async () => {
    const health = await t.http.get('/api/health').expect(200);
    expect(health.body.embeddings).toMatchObject({ configured: true, status: 'up', model: 'fake-embed' });
    expect(health.body.vector_store).toMatch(testServices().embedded ? /^pgvector/ : /^real\[\]/);
    const ready = await t.http.get('/readyz').expect(200);
    expect(Object.keys(ready.body.checks)).not.toContain('embeddings');
  });

  it('answers full-text results when the embeddings server is down, and still stores uploads', async () => {
    await fake.close();
    const up = await t.http.post('/api/documents/upload').attach('file', Buffer.from('# Wind\n\nWind turbines and solar farms.'), 'wind.md').expect(200);
    expect(up.body.document.chunks_created).toBe(1);
    const res = await t.http.post('/api/rag/query').send({ query: 'turbines' }).expect(200);
    expect(res.body).toMatchObject({ search_mode: 'full_text', total_results: 1 });
    const health = await t.http.get('/api/health').expect(200);
    expect(health.body.embeddings.status).toBe('down');
    await t.http.get('/readyz').expect(200);
  });
});
