import { createTestApp, type TestApp } from '@platform/testing';
import type { AutomationConfig } from '../config';
import { automationApiService } from '../service';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';
import { commentWebhook, deliver, waitFor } from '../../test/engine-helpers';
import type { Release } from './call-budget';
import { TokenRefreshWorker } from '../tokens/token-refresh.worker';
import { GraphService } from './graph.service';
import { PacingRepository } from '../engine/pacing.repository';

/**
 * Two replicas (two app instances on one database) share the per-account budgets: together they
 * never grant more than the limit, and a replica defers private replies when the other one used the
 * shared budget up.
 */
describe('rate budgets shared by replicas (e2e)', () => {
  let ctx: AutomationTestContext;
  let second: TestApp<AutomationConfig>;
  let g1: GraphService;
  let g2: GraphService;

  beforeAll(async () => {
    ctx = await startAutomationApp({ PRIVATE_REPLIES_PER_HOUR: '5', GRAPH_CALLS_PER_HOUR: '6', AUTOMATION_POLL_MS: '50' });
    const database = ctx.t.database!;
    second = await createTestApp(automationApiService, { ...ctx.env, DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema ?? '' });
    g1 = ctx.t.app.get(GraphService);
    g2 = second.app.get(GraphService);
    // The token schedulers' first ticks (the expiry of each token read from the platform) are done.
    await Promise.all([ctx.t.app.get(TokenRefreshWorker).drain(), second.app.get(TokenRefreshWorker).drain()]);
  });
  afterAll(async () => {
    await second?.app.close();
    await ctx?.close();
  });

  it('grants exactly the limit of private replies to both replicas together under concurrent takes', async () => {
    const b = ctx.accountId('b');
    const attempts = await Promise.all(Array.from({ length: 40 }, (_x, i) => (i % 2 ? g1 : g2).privateReplyBudget(b).take()));
    const granted = attempts.filter((r): r is Release => r !== null);
    expect(granted).toHaveLength(5);
    await expect(g1.privateReplyBudget(b).count()).resolves.toBe(5);
    await expect(g2.privateReplyBudget(b).count()).resolves.toBe(5);
    expect(g2.privateReplyBudget(b).waitMs() + g1.privateReplyBudget(b).waitMs()).toBeGreaterThan(0);

    // A slot given back (the platform refused the send) can be taken once, by either replica.
    await granted[0]();
    await granted[0](); // idempotent
    const again = await Promise.all([g1.privateReplyBudget(b).take(), g2.privateReplyBudget(b).take(), g1.privateReplyBudget(b).take()]);
    expect(again.filter(Boolean)).toHaveLength(1);
    await expect(g1.privateReplyBudget(b).count()).resolves.toBe(5);
  });

  it('lets the platform calls of both replicas together reach the hourly call budget and queues the rest', async () => {
    const account = (await ctx.ds.query(`SELECT * FROM ${ctx.schema}.accounts WHERE id = $1`, [ctx.accountId('b')]))[0];
    const before = ctx.fakeB.requests.length;
    // This hour's budget already holds the token scheduler's look at B's token (debug_token at start).
    expect(ctx.fakeB.requestsTo('/debug_token')).toHaveLength(1);
    await expect(g1.limiter(account.id).calls.count()).resolves.toBe(1);
    const calls = Array.from({ length: 10 }, (_x, i) => (i % 2 ? g1 : g2).client(account, 'background').getAccount().then(() => 'done', () => 'stopped'));
    await waitFor(() => ctx.fakeB.requests.length - before >= 5);
    // Both replicas poll the used-up budget meanwhile; none of them lets a seventh call through.
    await waitFor(async () => (await g1.limiter(account.id).calls.count()) === 6 && g1.limiter(account.id).calls.waitMs() > 0 && g2.limiter(account.id).calls.waitMs() > 0);
    expect(ctx.fakeB.requests.length - before).toBe(5);
    await expect(g2.limiter(account.id).calls.count()).resolves.toBe(6);
    // The queued calls are not dropped: they are still waiting (they end when the apps close).
    const settled = await Promise.race([Promise.all(calls), new Promise((r) => setTimeout(() => r('pending'), 200))]);
    expect(settled).toBe('pending');
  });

  it('defers a private reply on one replica when the other used the shared budget up', async () => {
    const a = ctx.accountId('a');
    // The other replica sends the hour's five private replies.
    for (let i = 0; i < 5; i++) expect(await g2.privateReplyBudget(a).take()).not.toBeNull();
    const res = await ctx.t.http
      .post('/api/v1/automations')
      .set({ authorization: `Bearer ${ctx.keyA}` })
      .send({ name: 'Shared', keywords: ['shared'], link_url: 'https://example.com/s' })
      .expect(201);
    await ctx.t.http.post(`/api/v1/automations/${res.body.automation.id}/go_live`).set({ authorization: `Bearer ${ctx.keyA}` }).expect(200);
    const media = ctx.fakeA.addMedia();
    const c = ctx.fakeA.addComment(media.id, { text: 'shared please', from: { id: '8880001', username: 'ann' } });
    await deliver(ctx, commentWebhook(ctx.fakeA.state.account.user_id, c)).expect(200);

    const item = await waitFor(async () => {
      const [row] = await ctx.ds.query(`SELECT attempts, error, next_attempt_at > now() AS later FROM ${ctx.schema}.inbound_events WHERE dedup_key = $1 AND error LIKE '%deferred%'`, [`comment:${c.id}`]);
      return row;
    });
    expect(item).toEqual({ attempts: 0, error: expect.stringContaining('private replies per hour used up'), later: true });
    const [run] = await ctx.ds.query(`SELECT state FROM ${ctx.schema}.runs WHERE automation_id = $1`, [res.body.automation.id]);
    expect(run.state).toBe('started');
    expect(ctx.fakeA.state.messages).toHaveLength(0);
    await expect(g1.privateReplyBudget(a).count()).resolves.toBe(5);
  });

  it('the pacing slot of private replies is shared: of concurrent takes on both replicas one wins, the next is free after the gap', async () => {
    const b = ctx.accountId('b');
    const p1 = ctx.t.app.get(PacingRepository);
    const p2 = second.app.get(PacingRepository);
    const now = new Date();
    const takes = await Promise.all(Array.from({ length: 10 }, (_x, i) => (i % 2 ? p1 : p2).take(b, now, 2_000)));
    expect(takes.filter((t) => t === null)).toHaveLength(1);
    for (const t of takes.filter((x) => x !== null)) expect(t!.getTime()).toBe(now.getTime() + 2_000);
    await expect(p2.take(b, new Date(now.getTime() + 1_999), 2_000)).resolves.toEqual(new Date(now.getTime() + 2_000));
    await expect(p1.take(b, new Date(now.getTime() + 2_000), 2_000)).resolves.toBeNull();
    await expect(p2.nextAt(b)).resolves.toEqual(new Date(now.getTime() + 4_000));
  });
});
