import { createHmac } from 'node:crypto';
import type { Response } from 'supertest';
import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';

/**
 * The click redirect and the webhook receiver are answered before Express (raw-routes.ts). Express
 * matches paths without regard to case, the raw routes do not: `/R/…` and `/WEBHOOKS/…` take the
 * Express routes, so each answer of a raw route is compared with the Express route's answer to the
 * same request.
 */
describe('raw routes answer as the Express routes (e2e)', () => {
  let ctx: AutomationTestContext;
  let seq = 0;

  /** Status, header names in order and their values (the request id and the date aside), body. */
  const answer = (res: Response, replace: [string, string] = ['', '']) => ({
    status: res.status,
    headers: (res as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders
      .flatMap((v, i, all) => (i % 2 === 0 ? [[v.toLowerCase(), all[i + 1]]] : []))
      .map(([name, value]) => [name, name === 'x-request-id' || name === 'date' || name === 'etag' ? '…' : value.split(replace[0]).join(replace[1])]),
    body: res.text?.split(replace[0]).join(replace[1]),
  });

  async function link(): Promise<{ token: string; url: string }> {
    const created = await ctx.t.http.post('/api/v1/automations').set({ authorization: `Bearer ${ctx.keyA}` }).send({ name: `Raw ${++seq}`, trigger: 'dm', keywords: [`raw${seq}`], link_url: 'https://example.com/x' });
    const runId = await ctx.insertRun('a', created.body.automation.id, { contact_ig_id: `ig-raw-${seq}`, trigger: 'dm', state: 'done', link_sent_at: new Date() });
    const token = `raw${String(seq).padStart(9, '0')}`;
    await ctx.ds.query(`INSERT INTO ${ctx.schema}.click_links (token, account_id, automation_id, run_id, url) VALUES ($1, $2, $3, $4, $5)`, [token, ctx.accountId('a'), created.body.automation.id, runId, `https://example.com/t?${token}`]);
    return { token, url: `https://example.com/t?${token}` };
  }

  const signed = (body: string, secret = 'app-secret') => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const delivery = (commentId: string) =>
    JSON.stringify({ object: 'instagram', entry: [{ id: ctx.fakeA.state.account.user_id, time: 1, changes: [{ field: 'comments', value: { id: commentId, from: { id: 'u1', username: 'u' }, text: 'hello', media: { id: 'm1' } } }] }] });
  const stored = async (commentId: string) => (await ctx.ds.query(`SELECT count(*)::int AS n FROM ${ctx.schema}.inbound_events WHERE dedup_key LIKE $1`, [`%${commentId}%`]))[0].n as number;

  beforeAll(async () => {
    ctx = await startAutomationApp();
  });
  afterAll(() => ctx?.close());

  it('redirects a click as the Express route does, in text and in HTML, and counts it', async () => {
    for (const accept of ['*/*', 'text/html']) {
      const [a, b] = [await link(), await link()];
      const raw = await ctx.t.http.get(`/r/${a.token}?utm=1`).set('accept', accept).set('user-agent', 'ua');
      const routed = await ctx.t.http.get(`/R/${b.token}?utm=1`).set('accept', accept).set('user-agent', 'ua');
      expect(raw.status).toBe(302);
      expect(answer(raw, [a.token, 'T'])).toEqual(answer(routed, [b.token, 'T']));
      const counted = await ctx.ds.query(`SELECT l.token, count(c.*)::int AS n FROM ${ctx.schema}.click_links l JOIN ${ctx.schema}.clicks c ON c.link_id = l.id WHERE l.token = ANY($1) GROUP BY 1`, [[a.token, b.token]]);
      expect(counted.map((r: { n: number }) => r.n)).toEqual([1, 1]);
    }
  });

  it('answers an unknown code and a HEAD as the Express route does', async () => {
    expect(answer(await ctx.t.http.get('/r/nosuchcode00'))).toEqual(answer(await ctx.t.http.get('/R/nosuchcode00')));
    expect((await ctx.t.http.get('/r/nosuchcode00')).status).toBe(404);
    const [a, b] = [await link(), await link()];
    expect(answer(await ctx.t.http.head(`/r/${a.token}`), [a.token, 'T'])).toEqual(answer(await ctx.t.http.head(`/R/${b.token}`), [b.token, 'T']));
  });

  it('stores a signed delivery and refuses a wrong signature, a malformed body and another content type as the Express route does', async () => {
    const [one, two] = [delivery('raw-c1'), delivery('raw-c2')];
    const post = (path: string, body: string, headers: Record<string, string>) => ctx.t.http.post(path).set(headers).send(body);
    const json = { 'content-type': 'application/json' };
    const raw = await post('/webhooks/instagram', one, { ...json, 'x-hub-signature-256': signed(one) });
    const routed = await post('/WEBHOOKS/instagram', two, { ...json, 'x-hub-signature-256': signed(two) });
    expect(raw.status).toBe(200);
    expect(answer(raw)).toEqual(answer(routed));
    expect([await stored('raw-c1'), await stored('raw-c2')]).toEqual([1, 1]);

    const wrong = delivery('raw-c3');
    expect(answer(await post('/webhooks/instagram', wrong, { ...json, 'x-hub-signature-256': signed(wrong, 'other') }))).toEqual(
      answer(await post('/WEBHOOKS/instagram', wrong, { ...json, 'x-hub-signature-256': signed(wrong, 'other') })),
    );
    expect(await stored('raw-c3')).toBe(0);
    const statuses: number[] = [];
    for (const [body, headers] of [
      ['{"object": "instagram", "entry": [', json],
      [' {"object": "instagram"}', json],
      ['[1]', json],
      [`{"object":"instagram","entry":[${'['.repeat(40)}${']'.repeat(40)}]}`, json],
      ['object=instagram', { 'content-type': 'application/x-www-form-urlencoded' }],
    ] as Array<[string, Record<string, string>]>) {
      const a = await post('/webhooks/instagram', body, { ...headers, 'x-hub-signature-256': signed(body) });
      statuses.push(a.status);
      expect(answer(a)).toEqual(answer(await post('/WEBHOOKS/instagram', body, { ...headers, 'x-hub-signature-256': signed(body) })));
    }
    // Malformed JSON, an array where the delivery object goes, a body nested too deep: refused by the parsers and the receiver.
    expect(statuses[0]).toBe(400);
    expect(statuses[3]).toBe(400);
  });
});
