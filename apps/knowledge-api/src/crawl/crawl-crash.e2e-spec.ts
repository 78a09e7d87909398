import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { buildForTest, createTestDatabase, databaseEnv, spawnBuiltApp, type SpawnedApp, type TestDatabase } from '@platform/testing';

const PAGES = 40;

/**
 * The built service (dist/apps/knowledge-api/main.js) SIGKILLed in the middle of a sitemap crawl,
 * then started again on the same database: the crawl is taken over once its lease ran out and
 * completes, with every page stored once (no page, chunk or code example twice).
 */
describe('crawl killed mid-crawl (e2e, built app)', () => {
  let db: TestDatabase;
  let dataDir: string;
  let site: Server;
  let origin: string;
  let served = 0;
  let halfway: () => void = () => undefined;
  const children: SpawnedApp[] = [];
  let env: NodeJS.ProcessEnv;

  const page = (i: number) =>
    `<!doctype html><html><head><title>Page ${i}</title></head><body><main><article><h1>Page ${i}</h1>
<p>${`Page ${i} explains the semaphore relay of station ${i} in plain words. `.repeat(8)}</p>
<pre><code class="language-js">${`const station${i} = relay(signal, ${i});\n`.repeat(10)}</code></pre></article></main></body></html>`;

  async function start(): Promise<SpawnedApp> {
    const app = await spawnBuiltApp('knowledge-api', env, { inherit: false });
    children.push(app);
    return app;
  }

  beforeAll(async () => {
    await buildForTest('knowledge-api');
    db = await createTestDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), 'knowledge-crash-'));
    site = createServer((req, res) => {
      if (req.url === '/sitemap.xml') {
        const urls = Array.from({ length: PAGES }, (_, i) => `<url><loc>${origin}/docs/${i}</loc></url>`).join('');
        return void res.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`);
      }
      const m = /^\/docs\/(\d+)$/.exec(req.url ?? '');
      if (!m) return void res.writeHead(404).end();
      if (++served === PAGES / 2) halfway();
      // slow enough that the kill lands while pages are still being fetched
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(Number(m[1]))), 40);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    env = { ...process.env };
    for (const name of ['AMQP_URL', 'REDIS_URL', 'EMBEDDINGS_URL', 'RERANK_URL', 'LLM_URL', 'DATABASE_SCHEMA']) delete env[name];
    Object.assign(env, {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      ...databaseEnv(db),
      CRAWL_ALLOW_PRIVATE: 'true',
      CRAWL_HOST_DELAY_MS: '0',
      CRAWL_POLL_MS: '100',
      CRAWL_LEASE_SECONDS: '2',
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await new Promise((r) => site?.close(r));
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes after the restart and stores every page once', async () => {
    const first = await start();
    const reachedHalf = new Promise<void>((r) => (halfway = r));
    const queued = await fetch(`${first.url}/api/knowledge-items/crawl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${origin}/sitemap.xml`, knowledge_type: 'technical', update_frequency: 0 }),
    });
    expect(queued.status).toBe(200);
    const { progress_id: id } = (await queued.json()) as { progress_id: string };
    await reachedHalf;
    await first.kill();
    const servedBeforeKill = served;
    expect(servedBeforeKill).toBeLessThan(PAGES);

    const second = await start();
    let progress: { status: string; logs: string[]; error?: string };
    for (;;) {
      progress = (await (await fetch(`${second.url}/api/progress/${id}`)).json()) as typeof progress;
      if (['completed', 'error', 'cancelled'].includes(progress.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(progress.status).toBe('completed');
    expect(progress.logs.some((l) => l.startsWith('Taken over from a replica that stopped (attempt 2)'))).toBe(true);

    const schema = db.schema ?? 'knowledge';
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const run = await client.query(`SELECT run_state, attempts FROM ${schema}.progress WHERE progress_id = $1`, [id]);
      expect(run.rows).toEqual([{ run_state: 'finished', attempts: 2 }]);
      const sources = await client.query(`SELECT count(*)::int AS n FROM ${schema}.sources`);
      expect(sources.rows[0].n).toBe(1);
      const chunks = await client.query(`SELECT url, chunk_number, count(*)::int AS n FROM ${schema}.chunks GROUP BY url, chunk_number ORDER BY url, chunk_number`);
      expect(new Set(chunks.rows.map((r) => r.url)).size).toBe(PAGES);
      expect(chunks.rows.filter((r) => r.n !== 1)).toEqual([]);
      const examples = await client.query(`SELECT url, count(*)::int AS n FROM ${schema}.code_examples GROUP BY url`);
      expect(examples.rows).toHaveLength(PAGES);
      expect(examples.rows.filter((r) => r.n !== 1)).toEqual([]);
    } finally {
      await client.end();
    }
  }, 60_000);
});
