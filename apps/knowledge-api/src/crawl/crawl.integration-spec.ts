// Crawls of websites served by the test on loopback, followed over a real Socket.IO client and
// over REST: a sitemap, a sitemap index, an llms.txt, a recursive site with depth limits,
// robots.txt exclusions, a slow page, a broken link, non-HTML; progress in phase order with
// monotonic percentages; cancel; a second app on the same database reading the progress.
import type { AddressInfo } from 'node:net';
import { Database } from '@platform/database';
import { createTestApp, createTestDatabase, createTestRedisPrefix, type TestApp } from '@platform/testing';
import { io, type Socket } from 'socket.io-client';
import { page, startSite, type TestSite } from '../../test/test-site';
import type { KnowledgeApiConfig } from '../config';
import { PHASES } from '../progress/progress-phases';
import { ProgressService } from '../progress/progress.service';
import type { ProgressRow } from '../progress/progress.types';
import type { ProgressPayload } from '../progress/progress-payload';
import { knowledgeApiService } from '../service';
import { SourcesRepository } from '../sources/sources.repository';
import { sourceIdOf } from './crawl.service';
import { CrawlWorker } from './crawl.worker';

// With Redis (when the test servers have it) the two apps of the cancel test share their Socket.IO
// events, whichever of them runs the crawl.
const redis = createTestRedisPrefix();
const ENV = {
  CRAWL_ALLOW_PRIVATE: 'true',
  CRAWL_HOST_DELAY_MS: '0',
  CRAWL_PAGE_TIMEOUT_MS: '1000',
  CRAWL_POLL_MS: '200',
  CRAWL_MAX_PAGE_BYTES: '200000',
  ...(redis.url ? { REDIS_URL: redis.url, REDIS_KEY_PREFIX: redis.prefix } : {}),
};
const ORDER = ['queued', ...PHASES.map((p) => p.status), 'completed'];

describe('crawl (integration)', () => {
  let t: TestApp<KnowledgeApiConfig>;
  let base: string;
  const sites: TestSite[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    t = await createTestApp(knowledgeApiService, ENV);
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await t?.close();
    await Promise.all(sites.map((s) => s.close()));
    await redis.cleanup();
  });

  async function site(routes: Parameters<typeof startSite>[0]): Promise<TestSite> {
    const s = await startSite(routes);
    sites.push(s);
    return s;
  }

  /** Subscribes on /crawl (or join_progress on /) and collects events until the crawl ends. */
  function follow(progressId: string, ns: '/crawl' | '/' = '/crawl'): Promise<Array<{ event: string; data: ProgressPayload }>> {
    const socket = io(`${base}${ns === '/' ? '' : ns}`, { transports: ['websocket'], forceNew: true });
    sockets.push(socket);
    const events: Array<{ event: string; data: ProgressPayload }> = [];
    return new Promise((resolve, reject) => {
      for (const event of ['progress_update', 'progress_complete', 'progress_error']) {
        socket.on(event, (data: ProgressPayload) => {
          events.push({ event, data });
          if (event !== 'progress_update') {
            socket.close();
            resolve(events);
          }
        });
      }
      socket.on('connect_error', reject);
      socket.on('connect', () => socket.emit(ns === '/' ? 'join_progress' : 'subscribe', { progress_id: progressId }));
    });
  }

  async function crawl(body: Record<string, unknown>, ns: '/crawl' | '/' = '/crawl') {
    const res = await t.http.post('/api/knowledge-items/crawl').send({ knowledge_type: 'technical', ...body }).expect(200);
    expect(res.body).toEqual({ success: true, progress_id: expect.any(String), message: expect.any(String), estimated_duration: expect.any(String) });
    const events = await follow(res.body.progress_id, ns);
    return { progressId: res.body.progress_id as string, events };
  }

  function expectOrdered(events: Array<{ data: ProgressPayload }>): void {
    let lastIndex = -1;
    let lastPct = -1;
    for (const { data } of events) {
      const idx = ORDER.indexOf(data.status);
      expect(idx).toBeGreaterThanOrEqual(lastIndex);
      expect(data.percentage).toBeGreaterThanOrEqual(lastPct);
      const phase = PHASES.find((p) => p.status === data.status);
      if (phase) {
        expect(data.percentage).toBeGreaterThanOrEqual(phase.from);
        expect(data.percentage).toBeLessThanOrEqual(phase.to);
      }
      lastIndex = idx;
      lastPct = data.percentage;
    }
  }

  const search = async (query: string, source?: string) =>
    (await t.http.post('/api/rag/query').send({ query, source, match_count: 10 }).expect(200)).body as {
      results: Array<{ url: string; content: string; similarity_score: number; metadata: { source_id: string } }>;
    };

  it('crawls a site recursively to max_depth, same site only, respecting robots.txt, skipping slow, broken and non-HTML pages', async () => {
    const s = await site({
      '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' },
      '/': page('Home', 'homepage welcome', ['/l1a', '/l1b', '/private/secret', '/missing', '/slow', '/data.bin', '/huge', '/logo.png', 'https://example.org/away', '/l1a#again']),
      '/l1a': page('Level one A', 'zebracorn meadow', ['/l2', '/']),
      '/l1b': page('Level one B', 'quokkaberry orchard', ['/l2']),
      '/l2': page('Level two', 'platypine canyon', ['/l3']),
      '/l3': page('Level three', 'narwhalnut lagoon'),
      '/private/secret': page('Secret', 'forbiddenword'),
      '/slow': { body: page('Slow', 'tardigradeword'), delayMs: 5000 },
      '/data.bin': { type: 'application/octet-stream', body: 'binary' },
      '/huge': page('Huge', 'hugeword', [], `<p>${'x'.repeat(300_000)}</p>`),
    });
    const { events, progressId } = await crawl({ url: `${s.origin}/`, max_depth: 2, tags: ['site'] });

    expectOrdered(events);
    const statuses = new Set(events.map((e) => e.data.status));
    for (const p of PHASES) expect(statuses).toContain(p.status);
    const last = events[events.length - 1];
    expect(last.event).toBe('progress_complete');
    expect(last.data).toMatchObject({ progressId, status: 'completed', percentage: 100, chunksStored: expect.any(Number), wordCount: expect.any(Number) });
    expect(last.data.chunksStored).toBeGreaterThanOrEqual(3);
    for (const key of ['start_time', 'currentUrl', 'totalPages', 'processedPages', 'log', 'logs']) expect(last.data).toHaveProperty(key);
    expect(last.data.logs.some((l) => /^Batch 1\/\d+: Processing items 1-\d+ of \d+$/.test(l))).toBe(true);
    expect(last.data.logs.some((l) => l.includes('/private/secret') && l.includes('robots.txt'))).toBe(true);
    expect(last.data.logs.some((l) => l.includes('/missing') && l.includes('HTTP 404'))).toBe(true);
    expect(last.data.logs.some((l) => l.includes('/slow') && /TIMEOUT/.test(l))).toBe(true);
    expect(last.data.logs.some((l) => l.includes('/data.bin') && l.includes('not HTML'))).toBe(true);
    expect(last.data.logs.some((l) => l.includes('/huge') && l.includes('RESPONSE_TOO_LARGE'))).toBe(true);
    expect((await search('hugeword')).results).toHaveLength(0);

    expect(s.hits).not.toContain('/private/secret');
    expect(s.hits).not.toContain('/l2'); // depth 3
    expect(s.hits).not.toContain('/logo.png');
    expect(s.hits.filter((h) => h === '/l1a')).toHaveLength(1); // each page once

    expect((await search('zebracorn')).results[0].url).toBe(`${s.origin}/l1a`);
    expect((await search('platypine')).results).toHaveLength(0);

    // REST has the same final state
    const rest = await t.http.get(`/api/progress/${progressId}`).expect(200);
    expect(rest.body).toMatchObject({ status: 'completed', percentage: 100, chunksStored: last.data.chunksStored });

    // deeper crawl of the same host: the same source, now with level two, not level three
    const deeper = await crawl({ url: `${s.origin}/`, max_depth: 3 });
    expect(deeper.events[deeper.events.length - 1].data.status).toBe('completed');
    expect((await search('platypine')).results[0].url).toBe(`${s.origin}/l2`);
    expect((await search('narwhalnut')).results).toHaveLength(0);
  });

  it('crawls every page of a sitemap, and of a sitemap index with nested sitemaps', async () => {
    const s = await site({
      '/sitemap.xml': (o) => ({
        type: 'application/xml',
        body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/docs/a</loc></url><url><loc>${o}/docs/b</loc></url></urlset>`,
      }),
      '/docs/a': page('Doc A', 'sitemapalpha', ['/docs/unlisted']),
      '/docs/b': page('Doc B', 'sitemapbeta'),
      '/docs/unlisted': page('Unlisted', 'unlistedgamma'),
    });
    const { events } = await crawl({ url: `${s.origin}/sitemap.xml` }, '/');
    expectOrdered(events);
    expect(events[events.length - 1].data).toMatchObject({ status: 'completed', totalPages: 2, message: expect.any(String) });
    expect((await search('sitemapbeta')).results[0].url).toBe(`${s.origin}/docs/b`);
    expect(s.hits).not.toContain('/docs/unlisted');

    const idx = await site({
      '/sitemap_index.xml': (o) => ({
        type: 'application/xml',
        body: `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${o}/sitemap-guides.xml</loc></sitemap><sitemap><loc>${o}/sitemap-blog.xml</loc></sitemap></sitemapindex>`,
      }),
      '/sitemap-guides.xml': (o) => ({ type: 'application/xml', body: `<urlset><url><loc>${o}/guides/one</loc></url></urlset>` }),
      '/sitemap-blog.xml': (o) => ({
        type: 'application/xml',
        body: `<urlset><url><loc>${o}/blog/post</loc></url><url><loc>${o}/blog/gone</loc></url></urlset>`,
      }),
      '/guides/one': page('Guide one', 'indexguideword'),
      '/blog/post': page('Blog post', 'indexblogword'),
    });
    const res = await crawl({ url: `${idx.origin}/sitemap_index.xml` });
    expect(res.events[res.events.length - 1].data.status).toBe('completed');
    expect((await search('indexguideword')).results[0].url).toBe(`${idx.origin}/guides/one`);
    expect((await search('indexblogword')).results[0].url).toBe(`${idx.origin}/blog/post`);
  });

  it('downloads an llms.txt directly, with its code blocks as code examples', async () => {
    const code = Array.from({ length: 20 }, (_, i) => `client.call("endpoint_${i}", { retries: ${i} });`).join('\n');
    const s = await site({
      '/llms.txt': { type: 'text/plain', body: `# Llama docs\n\n> llmstxtword summary of the project.\n\n## API\n\nUse it like this:\n\n\`\`\`javascript\n${code}\n\`\`\`\n` },
    });
    const { events } = await crawl({ url: `${s.origin}/llms.txt` });
    expect(events[events.length - 1].data).toMatchObject({ status: 'completed', totalPages: 1 });
    expect((await search('llmstxtword')).results[0].url).toBe(`${s.origin}/llms.txt`);
    const sources = await t.http.get('/api/rag/sources').expect(200);
    const mine = sources.body.sources.find((x: { source_id: string }) => x.source_id === sourceIdOf(`${s.origin}/llms.txt`));
    expect(mine).toMatchObject({ title: 'Llama docs', code_examples_count: 1, source_type: 'url' });
    const del = await t.http.delete(`/api/sources/${encodeURIComponent(mine.source_id)}`).expect(200);
    expect(del.body).toMatchObject({ success: true, pages_deleted: 1, code_examples_deleted: 1, total_chunks_removed: 2 });
    await t.http.delete(`/api/sources/${encodeURIComponent(mine.source_id)}`).expect(404, { error: 'Source not found' });
  });

  it('refuses bad requests with a clear 400', async () => {
    const bad = await t.http.post('/api/knowledge-items/crawl').send({ url: 'ftp://x', knowledge_type: 'technical' }).expect(400);
    expect(bad.body.error).toMatch(/url/);
    await t.http.post('/api/knowledge-items/crawl').send({ url: 'https://x.dev', knowledge_type: 'technical', max_depth: 6 }).expect(400);
    await t.http.post('/api/knowledge-items/crawl').send({ url: 'https://x.dev' }).expect(400);
    await t.http.get('/api/progress/00000000-0000-4000-8000-000000000000').expect(404);
  });

  it('cancels a running crawl; another app on the same database reads it, refuses a second crawl of the host (409) and cancels it', async () => {
    const many: Record<string, string | { body: string; delayMs: number }> = {};
    const links = Array.from({ length: 30 }, (_, i) => `/p${i}`);
    many['/'] = page('Root', 'rootword', links);
    for (const l of links) many[l] = { body: page(l, 'pageword'), delayMs: 300 };
    const s = await site(many);
    const other = await createTestApp(knowledgeApiService, {
      ...ENV,
      DATABASE_URL: t.database!.url,
      DATABASE_SCHEMA: t.database!.schema,
    });
    try {
      const res = await t.http.post('/api/knowledge-items/crawl').send({ url: `${s.origin}/`, knowledge_type: 'business' }).expect(200);
      const id = res.body.progress_id as string;
      // without Redis a client of one app hears only the crawls that app runs: follow after the end then
      const ended = redis.url ? follow(id) : null;
      // wait until it is crawling (observed through the other app), then cancel there
      for (let i = 0; i < 200; i++) {
        const p = await other.http.get(`/api/progress/${id}`).expect(200);
        if (p.body.status === 'crawling' && p.body.processedPages > 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const again = await other.http.post('/api/knowledge-items/crawl').send({ url: `${s.origin}/`, knowledge_type: 'business' }).expect(409);
      expect(again.body.error).toContain(id);
      await other.http.delete(`/api/progress/${id}`).expect(200);
      for (let i = 0; !ended && i < 200; i++) {
        if ((await other.http.get(`/api/progress/${id}`).expect(200)).body.status === 'cancelled') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const events = await (ended ?? follow(id));
      const last = events[events.length - 1];
      expect(last.event).toBe('progress_error');
      expect(last.data).toMatchObject({ status: 'cancelled', error: 'Crawl cancelled' });
      expectOrdered(events.slice(0, -1));
      expect(s.hits.length).toBeLessThan(31);
      await other.http.delete(`/api/progress/${id}`).expect(409);
    } finally {
      await other.close();
    }
  });

  it('recrawls when update_frequency comes due, chunking only the pages that changed', async () => {
    const routes: Record<string, string> = {
      '/': page('Start', 'recrawlstart', ['/same', '/changing']),
      '/same': page('Same', 'steadyword'),
      '/changing': page('Changing', 'beforeword'),
    };
    const s = await site(routes);
    const first = await crawl({ url: `${s.origin}/`, update_frequency: 3 });
    expect(first.events[first.events.length - 1].data.status).toBe('completed');
    const sourceId = sourceIdOf(`${s.origin}/`);
    expect(sourceId).toMatch(/^127\.0\.0\.1_\d+-[0-9a-f]{8}$/);
    const items = async () =>
      ((await t.http.get('/api/knowledge-items').query({ per_page: 100 }).expect(200)).body.items as Array<{ id: number; url: string; content: string; metadata: { source_id: string } }>).filter(
        (i) => i.metadata.source_id === sourceId,
      );
    const before = await items();
    const source = (await t.http.get('/api/rag/sources').expect(200)).body.sources.find((x: { source_id: string }) => x.source_id === sourceId);
    expect(source).toMatchObject({ update_frequency: 3, next_crawl_at: expect.any(String) });

    routes['/changing'] = page('Changing', 'afterword');
    // three days pass: the source's next crawl is due now
    await t.app.get(Database).affected(`UPDATE ${t.app.get(Database).table('sources')} SET next_crawl_at = now() - interval '1 second' WHERE source_id = $1`, [sourceId]);
    t.app.get(CrawlWorker).wake();
    const db = t.app.get(Database);
    let recrawl: ProgressRow | null = null;
    for (let i = 0; i < 200 && !recrawl; i++) {
      // the queued recrawl (it may run and end between two looks)
      recrawl = await db.one<ProgressRow>(`SELECT * FROM ${db.table('progress')} WHERE source_id = $1 AND request->>'recrawl' = 'true'`, [sourceId]);
      if (!recrawl) await new Promise((r) => setTimeout(r, 50));
    }
    expect(recrawl?.request).toMatchObject({ recrawl: true, update_frequency: 3 });
    const events = await follow(recrawl!.progress_id);
    const done = events[events.length - 1].data;
    expect(done.status).toBe('completed');
    expect(done.logs.some((l) => /\(2 unchanged pages kept\)/.test(l))).toBe(true);

    const after = await items();
    const byUrl = (list: typeof before, path: string) => list.filter((i) => i.url === `${s.origin}${path}`).map((i) => i.id);
    expect(byUrl(after, '/same')).toEqual(byUrl(before, '/same')); // untouched rows
    expect(byUrl(after, '/')).toEqual(byUrl(before, '/'));
    expect(byUrl(after, '/changing')).not.toEqual(byUrl(before, '/changing'));
    expect((await search('afterword')).results[0].url).toBe(`${s.origin}/changing`);
    expect((await search('beforeword')).results).toHaveLength(0);

    // a refresh whose storage fails leaves the old chunks searchable (each page swapped in one transaction)
    routes['/changing'] = page('Changing', 'thirdword');
    const spy = jest.spyOn(t.app.get(SourcesRepository), 'insertChunks').mockRejectedValueOnce(new Error('disk full'));
    const failed = await t.http.post(`/api/knowledge-items/${encodeURIComponent(sourceId)}/refresh`).expect(200);
    const failedEvents = await follow(failed.body.progress_id);
    spy.mockRestore();
    expect(failedEvents[failedEvents.length - 1].data).toMatchObject({ status: 'error', error: 'disk full' });
    expect((await search('afterword')).results[0].url).toBe(`${s.origin}/changing`);

    // a page that vanished is removed by the next refresh
    routes['/'] = page('Start', 'recrawlstart', ['/changing']);
    const refreshed = await t.http.post(`/api/knowledge-items/${encodeURIComponent(sourceId)}/refresh`).expect(200);
    const ok = await follow(refreshed.body.progress_id);
    const end = ok[ok.length - 1].data;
    expect(end.status).toBe('completed');
    expect(end.logs.some((l) => l.startsWith(`Removed 1 pages no longer found: ${s.origin}/same`))).toBe(true);
    expect((await search('steadyword')).results).toHaveLength(0);
    expect((await search('thirdword')).results[0].url).toBe(`${s.origin}/changing`);

    await t.http.post('/api/knowledge-items/nosuch-00000000/refresh').expect(404, { error: 'Source not found' });
  });

  it('prunes the progress of crawls that ended longer ago than PROGRESS_RETENTION_HOURS', async () => {
    const db = t.app.get(Database);
    const old = '00000000-0000-4000-8000-0000000000a1';
    const recent = '00000000-0000-4000-8000-0000000000a2';
    await db.affected(
      `INSERT INTO ${db.table('progress')} (progress_id, status, request, run_state, updated_at) VALUES
         ($1, 'completed', '{}', 'finished', now() - interval '169 hours'), ($2, 'completed', '{}', 'finished', now() - interval '167 hours')`,
      [old, recent],
    );
    expect(await t.app.get(ProgressService).pruneFinished(168)).toBeGreaterThanOrEqual(1);
    await t.http.get(`/api/progress/${old}`).expect(404);
    await t.http.get(`/api/progress/${recent}`).expect(200);
  });

  it('cancels the running crawl of a source that is deleted', async () => {
    const routes: Record<string, string | { body: string; delayMs: number }> = { '/': page('Root', 'deletedroot', Array.from({ length: 12 }, (_, i) => `/d${i}`)) };
    for (let i = 0; i < 12; i++) routes[`/d${i}`] = page(`D${i}`, 'deletedpage');
    const s = await site(routes);
    expect((await crawl({ url: `${s.origin}/` })).events.at(-1)?.data.status).toBe('completed');
    const sourceId = sourceIdOf(`${s.origin}/`);
    for (let i = 0; i < 12; i++) routes[`/d${i}`] = { body: page(`D${i}`, 'changedpage'), delayMs: 300 };
    const res = await t.http.post(`/api/knowledge-items/${encodeURIComponent(sourceId)}/refresh`).expect(200);
    await t.http.post(`/api/knowledge-items/${encodeURIComponent(sourceId)}/refresh`).expect(409);
    const ended = follow(res.body.progress_id);
    for (let i = 0; i < 200; i++) {
      if ((await t.http.get(`/api/progress/${res.body.progress_id}`).expect(200)).body.status === 'crawling') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const del = await t.http.delete(`/api/sources/${encodeURIComponent(sourceId)}`).expect(200);
    expect(del.body.pages_deleted).toBeGreaterThanOrEqual(13);
    const events = await ended;
    expect(events[events.length - 1].data).toMatchObject({ status: 'cancelled' });
    const sources = (await t.http.get('/api/rag/sources').expect(200)).body.sources as Array<{ source_id: string }>;
    expect(sources.map((x) => x.source_id)).not.toContain(sourceId);
    expect((await search('deletedpage')).results).toHaveLength(0);
  });

  it('refuses loopback and private URLs unless CRAWL_ALLOW_PRIVATE is set', async () => {
    const strict = await createTestApp(knowledgeApiService, {});
    try {
      const res = await strict.http.post('/api/knowledge-items/crawl').send({ url: 'http://127.0.0.1:8080/', knowledge_type: 'technical' }).expect(400);
      expect(res.body.error).toMatch(/cannot be crawled/);
      await strict.http.post('/api/knowledge-items/crawl').send({ url: 'http://169.254.169.254/latest/', knowledge_type: 'technical' }).expect(400);
    } finally {
      await strict.close();
    }
  });

  it('streams crawl log lines on /logs (log_entry) and sends recent ones to a new client (log_batch)', async () => {
    const s = await site({ '/llms.txt': { type: 'text/plain', body: '# Logs\n\nlogstreamword' } });
    const socket = io(`${base}/logs`, { transports: ['websocket'], forceNew: true });
    sockets.push(socket);
    const batch = new Promise<Array<{ timestamp: string; level: string; message: string }>>((resolve) => socket.on('log_batch', resolve));
    const entries: Array<{ level: string; message: string }> = [];
    socket.on('log_entry', (e: { level: string; message: string }) => entries.push(e));
    expect((await batch).length).toBeGreaterThan(0); // earlier crawls of this app
    await new Promise<void>((resolve) => (socket.connected ? resolve() : socket.on('connect', () => resolve())));
    const completedLine = new Promise<void>((resolve) =>
      socket.on('log_entry', (e: { message: string }) => e.message.includes('Crawl completed') && resolve()),
    );
    const { progressId } = await crawl({ url: `${s.origin}/llms.txt` });
    await completedLine;
    const mine = entries.filter((e) => e.message.startsWith(`[${progressId.slice(0, 8)}]`));
    expect(mine.some((e) => e.message.includes('Crawl completed'))).toBe(true);
    expect(mine.every((e) => e.level === 'info')).toBe(true);
  });

  it('hands a running crawl to another replica when its replica shuts down; it ends there', async () => {
    const links = Array.from({ length: 20 }, (_, i) => `/q${i}`);
    const routes: Parameters<typeof startSite>[0] = { '/': page('Handover', 'handoverroot', links) };
    for (const l of links) routes[l] = { body: page(l, `handover${l.slice(2)}word`), delayMs: 200 };
    const s = await site(routes);
    // two replicas on a database of their own (neither owns it: stopping one must not drop it)
    const database = await createTestDatabase();
    const shared = { ...ENV, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema };
    const replicas = [await createTestApp(knowledgeApiService, shared), await createTestApp(knowledgeApiService, shared)];
    const open = new Set(replicas);
    try {
      const res = await replicas[0].http.post('/api/knowledge-items/crawl').send({ url: `${s.origin}/`, knowledge_type: 'general' }).expect(200);
      const id = res.body.progress_id as string;
      let runner: (typeof replicas)[number] | undefined;
      for (let i = 0; i < 200 && !runner; i++) {
        const p = await replicas[0].http.get(`/api/progress/${id}`).expect(200);
        if (p.body.status === 'crawling' && p.body.processedPages > 0) runner = replicas.find((a) => a.app.get(CrawlWorker).active > 0);
        else await new Promise((r) => setTimeout(r, 50));
      }
      expect(runner).toBeDefined();
      await runner!.close(); // mid-crawl: the crawl is handed back to the queue
      open.delete(runner!);
      const survivor = replicas.find((a) => a !== runner)!;
      let done: { status: string; logs: string[] } | null = null;
      for (let i = 0; i < 400 && !done; i++) {
        const p = (await survivor.http.get(`/api/progress/${id}`).expect(200)).body;
        if (['completed', 'error', 'cancelled'].includes(p.status)) done = p;
        else await new Promise((r) => setTimeout(r, 50));
      }
      expect(done).toMatchObject({ status: 'completed' });
      expect(done!.logs.some((l) => l.startsWith('Taken over from a replica that stopped (attempt 2)'))).toBe(true);
      const found = await survivor.http.post('/api/rag/query').send({ query: 'handover19word' }).expect(200);
      expect(found.body.results[0].url).toBe(`${s.origin}/q19`);
    } finally {
      for (const r of open) await r.close();
      await database.drop();
    }
  });

  it('ends with progress_error when no page can be crawled', async () => {
    const s = await site({});
    const { events } = await crawl({ url: `${s.origin}/gone` });
    const last = events[events.length - 1];
    expect(last.event).toBe('progress_error');
    expect(last.data).toMatchObject({ status: 'error', error: expect.stringMatching(/no page of .* could be crawled/) });
    expect(last.data.logs.some((l) => l.includes('/gone') && l.includes('HTTP 404'))).toBe(true);
    expectOrdered(events.slice(0, -1));
  });
});
