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
    t = await createTestApp(knowledgeApiService, {
      EMBEDDINGS_URL: fake.url,
      EMBEDDINGS_MODEL: 'fake-embed',
      EMBEDDINGS_DIMENSIONS: '256',
      EMBEDDINGS_TIMEOUT_MS: '1000',
      EMBEDDINGS_QUERY_TIMEOUT_MS: '300',
      EMBEDDINGS_BREAKER_FAILURES: '2',
      EMBEDDINGS_BREAKER_COOLDOWN_MS: '400',
    });
    for (const [name, text] of [
      ['solar.md', '# Solar\n\nSolar panels convert sunlight into electricity efficiently.'],
      ['cells.md', '# Cells\n\nElectricity from sunlight: photovoltaic solar cells on the roof.'],
      ['garden.md', '# Garden\n\nSolar gardening tips: tomatoes love full sunlight.'],
      ['unrelated.md', '# Cooking\n\nBake the bread for forty minutes.'],
      ['client.md', `# HTTP client\n\nRetry failed HTTP requests with exponential backoff:\n\n\`\`\`python\n${PYTHON_RETRY}\n\`\`\`\n`],
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
    expect(ids.slice(0, 2).sort()).toEqual(['file:cells.md', 'file:solar.md']);
    expect(ids).toContain('file:garden.md'); // lacks "electricity": no full-text match for all three words
    expect(ids).not.toContain('file:unrelated.md');
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

  it('searches code examples by full text and vectors, filtered by language (POST /api/rag/code-examples)', async () => {
    const res = await t.http.post('/api/rag/code-examples').send({ query: 'exponential backoff retry', language: 'Python' }).expect(200);
    expect(res.body).toMatchObject({ success: true, search_mode: 'hybrid', total_results: 1 });
    expect(res.body.results[0]).toMatchObject({ source_id: 'file:client.md', language: 'python' });
    expect(res.body.results[0].content).toContain('def fetch_with_retry');
    expect(res.body.results[0].summary).toContain('exponential backoff');
    const other = await t.http.post('/api/rag/code-examples').send({ query: 'exponential backoff retry', language: 'go' }).expect(200);
    expect(other.body.total_results).toBe(0);
    const bad = await t.http.post('/api/rag/code-examples').send({ query: '', match_count: 500 }).expect(400);
    expect(bad.body.error).toBeDefined();
  });

  it('records the model of every vector', async () => {
    const db = t.app.get(Database);
    const models = await db.rows<{ model: string | null; n: number }>(`SELECT embedding_model AS model, count(*)::int AS n FROM ${db.table('chunks')} GROUP BY 1`);
    expect(models).toEqual([{ model: 'fake-embed', n: 5 }]);
  });

  it('answers a query within the short query timeout when the embeddings server hangs, then stops asking it (circuit breaker)', async () => {
    fake.mode = 'hang';
    for (let i = 0; i < 2; i++) {
      const res = await t.http.post('/api/rag/query').send({ query: 'photovoltaic' }).expect(200);
      expect(res.body).toMatchObject({ search_mode: 'full_text', total_results: 1 });
      expect(res.body.note).toMatch(/did not answer in time/);
    }
    const asked = fake.requests.length;
    const res = await t.http.post('/api/rag/query').send({ query: 'photovoltaic' }).expect(200);
    expect(res.body.note).toMatch(/failing: full-text results only until/);
    expect(fake.requests.length).toBe(asked); // the open breaker did not ask the server
    // the health probe waits for the hung server itself (EMBEDDINGS_TIMEOUT_MS), so the 400 ms cooldown may have passed
    expect((await t.http.get('/api/health').expect(200)).body.embeddings.query_breaker).not.toBe('closed');
  });

  it('stores uploads without vectors while the server fails, and the backfill embeds them afterwards', async () => {
    fake.mode = 'fail';
    const up = await t.http.post('/api/documents/upload').attach('file', Buffer.from('# Wind\n\nWind turbines and solar farms.'), 'wind.md').expect(200);
    expect(up.body.document.chunks_created).toBe(1);
    const db = t.app.get(Database);
    const missing = () => db.rows<{ id: number }>(`SELECT id FROM ${db.table('chunks')} WHERE embedding IS NULL OR embedding_model IS DISTINCT FROM 'fake-embed'`);
    expect(await missing()).toHaveLength(1);
    await t.http.get('/readyz').expect(200);

    fake.mode = 'ok';
    const started = await t.http.post('/api/knowledge-items/backfill-embeddings').expect(202);
    expect(started.body).toMatchObject({ success: true, started: true });
    let progress: { status: string; chunksStored?: number; logs: string[] } = { status: 'queued', logs: [] };
    for (let i = 0; i < 100 && !['completed', 'error'].includes(progress.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      progress = (await t.http.get(`/api/progress/${started.body.progress_id}`).expect(200)).body;
    }
    expect(progress).toMatchObject({ status: 'completed', chunksStored: 1 });
    expect(progress.logs.some((l) => /Batch 1\/1: Processing items 1-1 of 1/.test(l))).toBe(true);
    expect(await missing()).toHaveLength(0);

    await new Promise((r) => setTimeout(r, 450)); // the breaker's cooldown: the next query is its trial
    const res = await t.http.post('/api/rag/query').send({ query: 'wind turbines' }).expect(200);
    expect(res.body.search_mode).toBe('hybrid');
    expect(res.body.results[0].metadata.source_id).toBe('file:wind.md');
  });

  it('refuses a backfill without an embeddings server', async () => {
    const plain = await createTestApp(knowledgeApiService, {});
    try {
      const res = await plain.http.post('/api/knowledge-items/backfill-embeddings').expect(400);
      expect(res.body.error).toMatch(/EMBEDDINGS_URL/);
    } finally {
      await plain.close();
    }
  });
});

const PYTHON_RETRY = `import time
import urllib.request

def fetch_with_retry(url, attempts=5, base_delay=0.5):
    \"\"\"Fetch a URL, retrying failed requests with exponential backoff.\"\"\"
    for attempt in range(attempts):
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.read()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(base_delay * 2 ** attempt)`;
