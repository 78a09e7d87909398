// Two replicas of knowledge-api on one database and one Redis: a crawl run by one replica streams its
// progress to a Socket.IO client of the other (through the Redis adapter), and both answer the same
// progress over REST. Needs Redis (skipped without it: the in-memory adapter is one process).
import type { AddressInfo } from 'node:net';
import { createTestApp, createTestRedisPrefix, testServices, type TestApp, type TestRedisPrefix } from '@platform/testing';
import { io, type Socket } from 'socket.io-client';
import { page, startSite, type TestSite } from '../../test/test-site';
import type { KnowledgeApiConfig } from '../config';
import { knowledgeApiService } from '../service';
import { CrawlWorker } from '../crawl/crawl.worker';
import type { ProgressPayload } from './progress-payload';

const redis = testServices().redisUrl;
const describeWithRedis = redis ? describe : describe.skip;

describeWithRedis('replicas (integration, Redis)', () => {
  let a: TestApp<KnowledgeApiConfig>;
  let b: TestApp<KnowledgeApiConfig>;
  let prefix: TestRedisPrefix;
  let site: TestSite;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    prefix = createTestRedisPrefix();
    const env = { CRAWL_ALLOW_PRIVATE: 'true', CRAWL_HOST_DELAY_MS: '0', REDIS_URL: prefix.url, REDIS_KEY_PREFIX: prefix.prefix };
    a = await createTestApp(knowledgeApiService, { ...env, CRAWL_POLL_MS: '100' });
    b = await createTestApp(knowledgeApiService, {
      ...env,
      CRAWL_POLL_MS: '100',
      DATABASE_URL: a.database!.url,
      DATABASE_SCHEMA: a.database!.schema,
    });
    await a.app.listen(0, '127.0.0.1');
    await b.app.listen(0, '127.0.0.1');
    const links = Array.from({ length: 12 }, (_, i) => `/p${i}`);
    const routes: Parameters<typeof startSite>[0] = { '/': page('Root', 'replicaroot', links) };
    for (const l of links) routes[l] = { body: page(l, 'replicapage'), delayMs: 150 };
    site = await startSite(routes);
  });

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await b?.close();
    await a?.close();
    await site?.close();
    await prefix?.cleanup();
  });

  it('streams a crawl running on one replica to a client of the other, and both answer it over REST', async () => {
    const res = await a.http.post('/api/knowledge-items/crawl').send({ url: `${site.origin}/`, knowledge_type: 'general' }).expect(200);
    const id = res.body.progress_id as string;
    // a client on each replica; whichever replica claims the crawl, the other one's client must get its events
    const [onA, onB] = await Promise.all([follow(a, id), follow(b, id)]);
    const ranOn = new Set([...onA.ranOn, ...onB.ranOn]);
    expect(ranOn.size).toBe(1);
    const remote = ranOn.has('A') ? onB : onA;
    expect(remote.events.filter((e) => e.status === 'crawling' || e.status === 'document_storage').length).toBeGreaterThan(1);
    expect(remote.events[remote.events.length - 1]).toMatchObject({ status: 'completed', percentage: 100 });
    const fromB = await b.http.get(`/api/progress/${id}`).expect(200);
    const fromA = await a.http.get(`/api/progress/${id}`).expect(200);
    expect(fromB.body).toEqual(fromA.body);
  });

  /** Subscribes on one replica; records the events after the subscription answer and which replica runs the crawl. */
  async function follow(app: TestApp<KnowledgeApiConfig>, id: string): Promise<{ events: ProgressPayload[]; ranOn: string[] }> {
    const port = (app.app.getHttpServer().address() as AddressInfo).port;
    const socket = io(`http://127.0.0.1:${port}/crawl`, { transports: ['websocket'], forceNew: true });
    sockets.push(socket);
    const events: ProgressPayload[] = [];
    const ranOn: string[] = [];
    let subscribed = false;
    await new Promise<void>((resolve, reject) => {
      socket.on('connect_error', reject);
      socket.on('connect', () => socket.emit('subscribe', { progress_id: id }, (ack: { success: boolean }) => (subscribed = ack.success)));
      socket.on('progress_update', (p: ProgressPayload) => {
        if (!subscribed) return;
        events.push(p);
        if (p.status === 'crawling') {
          if (a.app.get(CrawlWorker).active) ranOn.push('A');
          if (b.app.get(CrawlWorker).active) ranOn.push('B');
        }
      });
      socket.on('progress_complete', (p: ProgressPayload) => {
        events.push(p);
        resolve();
      });
      socket.on('progress_error', (p: ProgressPayload) => reject(new Error(p.error)));
    });
    return { events, ranOn };
  }
});
