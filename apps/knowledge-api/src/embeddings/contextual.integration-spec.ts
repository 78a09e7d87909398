// Contextual embeddings against a fake chat server (test/fake-chat.ts) and a fake embeddings
// server: chunks embedded with the context the chat model wrote from their page, the model that
// made each vector recorded, chunks stored without context while the chat server fails, and the
// backfill (the re-embed job) giving them their context afterwards.
import { Database } from '@platform/database';
import { createTestApp, type TestApp } from '@platform/testing';
import { startFakeChat, type FakeChat } from '../../test/fake-chat';
import { startFakeEmbeddings, type FakeEmbeddings } from '../../test/fake-embeddings';
import type { KnowledgeApiConfig } from '../config';
import { RetrievalSettings } from '../search/retrieval-settings.service';
import { knowledgeApiService } from '../service';

const CONTEXT_MODEL = 'fake-embed+context:fake-llm';

/** The fake model's context: names the document's first heading. */
function context(prompt: string): string {
  const heading = /<document>\n# ([^\n]+)/.exec(prompt)?.[1] ?? 'unknown';
  return `Part of the guide about ${heading}.`;
}

describe('contextual embeddings (integration)', () => {
  let t: TestApp<KnowledgeApiConfig>;
  let chat: FakeChat;
  let embeddings: FakeEmbeddings;
  let db: Database;

  const models = async (sourceId: string) =>
    (await db.rows<{ model: string | null }>(`SELECT embedding_model AS model FROM ${db.table('chunks')} WHERE source_id = $1 ORDER BY chunk_number`, [sourceId])).map((r) => r.model);

  beforeAll(async () => {
    chat = await startFakeChat((req) => context(req.messages[1].content));
    embeddings = await startFakeEmbeddings({ dimensions: 64 });
    t = await createTestApp(knowledgeApiService, {
      EMBEDDINGS_URL: embeddings.url,
      EMBEDDINGS_MODEL: 'fake-embed',
      LLM_URL: chat.url,
      LLM_MODEL: 'fake-llm',
      LLM_TIMEOUT_MS: '1000',
      CONTEXTUAL_EMBEDDINGS: 'true',
      CRAWL_POLL_MS: '200',
    });
    db = t.app.get(Database);
  });

  afterAll(async () => {
    await t?.close();
    await chat?.close();
    await embeddings?.close();
  });

  it('embeds each chunk with the context the chat model wrote from its page, and says so', async () => {
    const text = `# Otters\n\n${'Otters are playful river animals. '.repeat(170)}\n\nThey eat crayfish, frogs and fish every day.`;
    await t.http.post('/api/documents/upload').attach('file', Buffer.from(text), 'otters.md').expect(200);
    const asked = chat.requests.filter((r) => r.model === 'fake-llm');
    expect(asked.length).toBe(2); // one per chunk
    expect(asked[1].messages[1].content).toMatch(/<document>\n# Otters[\s\S]*<chunk>\n[\s\S]*crayfish/);
    const inputs = embeddings.requests.flatMap((r) => r.input);
    expect(inputs.filter((i) => i.startsWith('Part of the guide about Otters.\n\n'))).toHaveLength(2);
    expect(await models('file:otters.md')).toEqual([CONTEXT_MODEL, CONTEXT_MODEL]);

    const res = await t.http.post('/api/rag/query').send({ query: 'crayfish' }).expect(200);
    expect(res.body.search_mode).toBe('hybrid');
    expect(res.body.results[0].content).toContain('crayfish');

    expect((await t.http.get('/api/health').expect(200)).body.contextual_embeddings).toEqual({ enabled: true, active: true, model: 'fake-llm' });
    const flags = await t.app.get(RetrievalSettings).flags();
    expect(flags).toMatchObject({ model_choice: 'fake-llm', use_contextual_embeddings: true, use_hybrid_search: true, use_agentic_rag: true, use_reranking: false });
  });

  it('stores chunks without context while the chat server fails; the backfill re-embeds them with context', async () => {
    chat.mode = 'fail';
    const up = await t.http.post('/api/documents/upload').attach('file', Buffer.from('# Beavers\n\nBeavers build dams across streams.'), 'beavers.md').expect(200);
    expect(up.body.document.chunks_created).toBe(1);
    expect(await models('file:beavers.md')).toEqual(['fake-embed']); // a vector, without context

    chat.mode = 'ok';
    const before = embeddings.requests.length;
    const started = await t.http.post('/api/knowledge-items/backfill-embeddings').expect(202);
    let progress: { status: string; chunksStored?: number; logs: string[] } = { status: 'queued', logs: [] };
    for (let i = 0; i < 100 && !['completed', 'error'].includes(progress.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      progress = (await t.http.get(`/api/progress/${started.body.progress_id}`).expect(200)).body;
    }
    expect(progress).toMatchObject({ status: 'completed', chunksStored: 1 });
    expect(progress.logs.some((l) => /Batch 1\/1: Processing items 1-1 of 1/.test(l))).toBe(true);
    expect(await models('file:beavers.md')).toEqual([CONTEXT_MODEL]);
    const reembedded = embeddings.requests.slice(before).flatMap((r) => r.input);
    expect(reembedded).toHaveLength(1);
    expect(reembedded[0]).toMatch(/^Part of the guide about Beavers\.\n\n[\s\S]*Beavers build dams across streams\.$/);
  });
});
