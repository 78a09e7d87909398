import { AutomationLinkClicked, EventBus, type EventEnvelope } from '@platform/messaging';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';

/** The click redirect: each click stored before the 302, counted right after (many per statement); reads wait for it. */
describe('click redirect (e2e)', () => {
  let ctx: AutomationTestContext;
  const bus: EventEnvelope<any>[] = [];
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  let automationId: number;
  let seq = 0;

  /** A run of `person` with a tracked link (as the engine creates them when it sends the link DM). */
  async function trackedLink(person: { ig_id: string; username?: string; email?: string; tags?: string[] } | null, position = 0) {
    const igId = person?.ig_id ?? `nobody-${++seq}`;
    const runId = await ctx.insertRun('a', automationId, { contact_ig_id: igId, username: `run_${igId}`, trigger: 'dm', state: 'done', link_sent_at: new Date() });
    if (person) {
      await ctx.ds.query(`INSERT INTO ${ctx.schema}.contacts (account_id, ig_id, username, email, tags) VALUES ($1, $2, $3, $4, $5::jsonb)`, [
        ctx.accountId('a'),
        person.ig_id,
        person.username ?? null,
        person.email ?? null,
        JSON.stringify(person.tags ?? []),
      ]);
    }
    const token = `tok${String(++seq).padStart(9, '0')}`;
    await ctx.ds.query(`INSERT INTO ${ctx.schema}.click_links (token, account_id, automation_id, run_id, url, position) VALUES ($1, $2, $3, $4, $5, $6)`, [
      token,
      ctx.accountId('a'),
      automationId,
      runId,
      `https://example.com/target-${seq}`,
      position,
    ]);
    return { token, runId: String(runId), igId, url: `https://example.com/target-${seq}` };
  }

  async function busEvents(runId: string, n: number) {
    for (let i = 0; i < 200 && bus.filter((e) => e.data.runId === runId).length < n; i++) await new Promise((r) => setTimeout(r, 25));
    return bus.filter((e) => e.data.runId === runId);
  }

  const count = async (sql: string, params: unknown[]) => (await ctx.ds.query(sql, params))[0].n as number;

  beforeAll(async () => {
    ctx = await startAutomationApp({ EMAIL_PUBLIC_KEY: 'pk_clicks' });
    await ctx.t.app.get(EventBus).subscribe('clicks-e2e', [AutomationLinkClicked], async (e) => {
      bus.push(e);
    });
    const created = await ctx.t.http.post('/api/v1/automations').set(auth()).send({ name: 'Clicks', trigger: 'dm', keywords: ['go'], link_url: 'https://example.com/x' });
    automationId = created.body.automation.id;
  });
  afterAll(() => ctx?.close());

  it('counts concurrent clicks of one run exactly: one first click, every click logged and published', async () => {
    const link = await trackedLink({ ig_id: 'ig-click-1', username: 'clara', email: 'clara@example.com', tags: ['lead'] }, 1);
    const answers = await Promise.all(Array.from({ length: 20 }, () => ctx.t.http.get(`/r/${link.token}`)));
    for (const res of answers) {
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(link.url);
    }
    // Every answered click is stored; a read right after the redirects sees them counted (read-your-clicks).
    expect(await count(`SELECT count(*)::int AS n FROM ${ctx.schema}.clicks c JOIN ${ctx.schema}.click_links l ON l.id = c.link_id WHERE l.token = $1`, [link.token])).toBe(20);
    const first = await ctx.t.http.get(`/api/v1/automations/${automationId}/funnel`).set(auth()).expect(200);
    expect(first.body.clicked).toBe(1);
    expect(await count(`SELECT count(*)::int AS n FROM ${ctx.schema}.clicks WHERE counted_at IS NULL`, [])).toBe(0);

    const [run] = await ctx.ds.query(`SELECT click_count, clicked_at FROM ${ctx.schema}.runs WHERE id = $1`, [link.runId]);
    expect(run.click_count).toBe(20);
    expect(run.clicked_at).not.toBeNull();
    const stored = await ctx.ds.query(
      `SELECT c.counted_at FROM ${ctx.schema}.clicks c JOIN ${ctx.schema}.click_links l ON l.id = c.link_id WHERE l.token = $1`,
      [link.token],
    );
    expect(stored).toHaveLength(20);
    expect(stored.every((c: { counted_at: Date | null }) => c.counted_at !== null)).toBe(true);
    expect(await count(`SELECT count(*)::int AS n FROM ${ctx.schema}.events WHERE kind = 'link_clicked' AND run_id = $1 AND ref = $2`, [link.runId, link.token])).toBe(20);

    const contact = (await ctx.t.http.get(`/api/v1/contacts/${link.igId}`).set(auth())).body;
    expect([...contact.tags].sort()).toEqual(['lead', 'link_clicked']);
    expect(contact.source).toBe(`link_clicked:${new Date(run.clicked_at).toISOString().slice(0, 10)}`);

    const events = await busEvents(link.runId, 20);
    expect(events).toHaveLength(20);
    expect(events.filter((e) => e.data.firstClick)).toHaveLength(1);
    expect(new Set(events.map((e) => e.id)).size).toBe(20);
    expect(events[0]).toMatchObject({ type: 'automation.link_clicked', source: 'automation-api' });
    expect(events[0].data).toEqual({
      accountId: String(ctx.accountId('a')),
      emailPublicKey: 'pk_clicks',
      igUserId: link.igId,
      igUsername: 'clara',
      automationId: String(automationId),
      runId: link.runId,
      email: 'clara@example.com',
      linkUrl: link.url,
      linkIndex: 1,
      firstClick: expect.any(Boolean),
    });

    // clicked counts runs with a click, not clicks.
    const summary = (await ctx.t.http.get('/api/v1/automations').set(auth())).body.find((a: { id: number }) => a.id === automationId);
    expect(summary.clicked).toBeGreaterThanOrEqual(1);
    const funnel = (await ctx.t.http.get(`/api/v1/automations/${automationId}/funnel`).set(auth())).body;
    expect(funnel.clicked).toBe(summary.clicked);
  });

  it('counts a click whose person has no contact row, with the name stored on the run', async () => {
    const link = await trackedLink(null);
    const res = await ctx.t.http.get(`/r/${link.token}`);
    expect(res.status).toBe(302);
    const [event] = await busEvents(link.runId, 1);
    expect(event.data).toMatchObject({ igUserId: link.igId, igUsername: `run_${link.igId}`, email: null, firstClick: true, linkIndex: 0 });
  });

  it.each(['ZZZZZZZZZZZZ', 'short', 'has-dash-1234', 'abcdef%00ghijk', `${'a'.repeat(65)}`])('answers 404 {error} for the unknown code %s and stores nothing', async (code) => {
    const before = await count(`SELECT count(*)::int AS n FROM ${ctx.schema}.clicks`, []);
    const res = await ctx.t.http.get(`/r/${code}`);
    expect(res.status).toBe(404);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(await count(`SELECT count(*)::int AS n FROM ${ctx.schema}.clicks`, [])).toBe(before);
  });
});
