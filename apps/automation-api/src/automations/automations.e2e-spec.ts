import { startAutomationApp, type AutomationTestContext } from '../../test/automation-app';

const AUTOMATION_FIELDS = [
  'id', 'name', 'status', 'active', 'trigger', 'media_ids', 'next_post', 'reel_caption', 'reel_publish_at', 'keywords', 'match_mode',
  'exclude_keywords', 'public_replies', 'opening_text', 'opening_button', 'follow_gate', 'gate_text', 'gate_button', 'link_url',
  'link_text', 'link_button', 'extra_links', 'follow_up_text', 'follow_up_minutes', 'email_gate', 'email_text', 'email_retry_text',
  'email_skip_if_known', 'webhook_url', 'webhook_secret', 'track_clicks', 'tags', 'once_per_user', 'priority', 'notes',
  'skip_if_answered', 'pending_next', 'reel_status', 'reel_media_id', 'reel_attached_at', 'reel_expired_at', 'reel_suggestion',
  'transition_mode', 'origin', 'imported_from', 'created_at', 'updated_at',
].sort();

const SUMMARY_FIELDS = [
  'id', 'name', 'status', 'active', 'trigger', 'keywords', 'posts', 'reel_status', 'reel_caption', 'reel_publish_at', 'reel_suggestion',
  'follower_check', 'email_gate', 'webhook', 'link', 'transition_mode', 'origin', 'triggered', 'link_sent', 'clicked', 'updated_at',
].sort();

const FUNNEL_FIELDS = [
  'id', 'name', 'trigger', 'active', 'triggered', 'dm_sent', 'button_tapped', 'gated', 'gate_passed', 'email_asked', 'email_captured',
  'email_expired', 'link_sent', 'clicked', 'followed_up', 'errors', 'skipped', 'skipped_other_tool', 'read_fallback', 'human_takeover',
].sort();

describe('automations (e2e)', () => {
  let ctx: AutomationTestContext;
  const auth = () => ({ authorization: `Bearer ${ctx.keyA}` });
  const post = (path: string, body?: unknown) => ctx.t.http.post(`/api/v1${path}`).set(auth()).send(body as object);
  const get = (path: string) => ctx.t.http.get(`/api/v1${path}`).set(auth());
  const patch = (path: string, body: unknown) => ctx.t.http.patch(`/api/v1${path}`).set(auth()).send(body as object);
  const create = async (body: Record<string, unknown>) => {
    const res = await post('/automations', body);
    expect(res.status).toBe(201);
    return res.body.automation as Record<string, any>;
  };

  beforeAll(async () => {
    // More automations than the default plan holds (BILLING_AUTOMATIONS; its limit is tested in plan-limits.e2e-spec).
    ctx = await startAutomationApp({ BILLING_AUTOMATIONS: '0' });
  });
  afterAll(() => ctx?.close());

  describe('POST /automations', () => {
    it('creates a draft with every field and the spec defaults applied', async () => {
      const res = await post('/automations', { keywords: ['guide'] });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['automation', 'notes', 'preview']);
      const a = res.body.automation;
      expect(Object.keys(a).sort()).toEqual(AUTOMATION_FIELDS);
      expect(a).toMatchObject({
        id: expect.any(Number),
        status: 'draft',
        active: true,
        trigger: 'comment',
        media_ids: null,
        next_post: false,
        match_mode: 'word',
        keywords: ['guide'],
        exclude_keywords: [],
        public_replies: [],
        opening_text: "Hey {username}! Tap the button and I'll send you the link.",
        opening_button: null,
        follow_gate: false,
        gate_text: 'Almost there! Follow me real quick, then tap the button again and the link comes right away.',
        gate_button: 'I follow you now',
        link_text: "Here's your link 👇",
        link_button: 'Open',
        extra_links: [],
        follow_up_minutes: 0,
        email_gate: false,
        email_text: 'Quick one: which email should I send it to? 📩',
        email_retry_text: "Hm, that didn't look like an email. Just type it in here 🙂",
        email_skip_if_known: true,
        webhook_url: null,
        webhook_secret: '***',
        track_clicks: true,
        tags: [],
        once_per_user: true,
        priority: 0,
        skip_if_answered: true,
        pending_next: false,
        reel_status: null,
        reel_attached_at: null,
        reel_expired_at: null,
        reel_suggestion: null,
        transition_mode: false,
        origin: null,
      });
      expect(new Date(a.created_at).toISOString()).toBe(a.created_at);
      expect(res.body.notes).toEqual(expect.arrayContaining([expect.stringContaining('draft')]));
      expect(res.body.preview).toEqual({ username: 'username', steps: [] });
    });

    it('stores the webhook secret but returns it masked, and defaults the opening button with the follower check', async () => {
      const res = await post('/automations', {
        name: 'Full',
        keywords: ['link'],
        public_replies: ['Check your DMs {username}!'],
        follow_gate: true,
        link_url: 'https://example.com/guide',
        extra_links: [{ title: 'Shop', url: 'https://example.com/shop' }],
        webhook_url: 'https://93.184.216.34/hook',
        webhook_secret: 's3cret',
        follow_up_text: 'Still want it, {username}?',
        follow_up_minutes: 60,
      });
      expect(res.status).toBe(201);
      const a = res.body.automation;
      expect(a.webhook_secret).toBe('***');
      expect(a.opening_button).toBe('Send link');
      const [{ webhook_secret }] = await ctx.ds.query(`SELECT webhook_secret FROM ${ctx.schema}.automations WHERE id = $1`, [a.id]);
      expect(webhook_secret).toBe('s3cret');
      expect(res.body.preview.steps.map((s: { type: string }) => s.type)).toEqual([
        'public_reply',
        'opening_dm',
        'follow_gate',
        'link_dm',
        'follow_up',
        'webhook',
      ]);
      expect(res.body.preview.steps[0].text).toBe('Check your DMs username!');
      expect(res.body.preview.steps[3].buttons).toEqual([
        { type: 'web_url', title: 'Open', url: 'https://example.com/guide' },
        { type: 'web_url', title: 'Shop', url: 'https://example.com/shop' },
      ]);
      const got = await get(`/automations/${a.id}`);
      expect(got.body.webhook_secret).toBe('***');
    });

    const longCaption = 'x'.repeat(301);
    it.each<[string, Record<string, unknown>, string]>([
      ['unknown property', { keywords: ['a'], colour: 'red' }, 'colour'],
      ['bad trigger', { trigger: 'mention' }, 'trigger'],
      ['bad match_mode', { match_mode: 'regex' }, 'match_mode'],
      ['3 extra links', { extra_links: [1, 2, 3].map((i) => ({ title: `t${i}`, url: `https://e.com/${i}` })) }, 'extra_links'],
      ['extra link without url', { extra_links: [{ title: 'x' }] }, 'extra_links.0.url'],
      ['extra link without title', { extra_links: [{ url: 'https://e.com' }] }, 'extra_links.0.title'],
      ['extra link with unknown key', { extra_links: [{ title: 'x', url: 'https://e.com', icon: 'y' }] }, 'icon'],
      ['follow_up_minutes above 1380', { follow_up_minutes: 1381 }, 'follow_up_minutes'],
      ['follow_up_minutes negative', { follow_up_minutes: -1 }, 'follow_up_minutes'],
      ['follow_up_minutes fractional', { follow_up_minutes: 1.5 }, 'follow_up_minutes'],
      ['reel_caption too short', { next_post: true, reel_caption: 'ab' }, 'reel_caption'],
      ['reel_caption too long', { next_post: true, reel_caption: longCaption }, 'reel_caption'],
      ['reel_publish_at without zone', { next_post: true, reel_publish_at: '2026-12-01T18:00:00' }, 'reel_publish_at'],
      ['reel_publish_at not a date', { next_post: true, reel_publish_at: 'tomorrow' }, 'reel_publish_at'],
      ['link_url over http', { link_url: 'http://example.com' }, 'link_url'],
      ['link_url not a URL', { link_url: 'guide' }, 'link_url'],
      ['webhook_url over http', { webhook_url: 'http://93.184.216.34/hook' }, 'webhook_url'],
      ['webhook_url loopback', { webhook_url: 'https://127.0.0.1/hook' }, 'webhook_url'],
      ['webhook_url localhost', { webhook_url: 'https://localhost/hook' }, 'webhook_url'],
      ['webhook_url private', { webhook_url: 'https://10.1.2.3/hook' }, 'webhook_url'],
      ['webhook_url metadata', { webhook_url: 'https://169.254.169.254/latest' }, 'webhook_url'],
      ['dm with media_ids', { trigger: 'dm', media_ids: ['1'] }, 'media_ids'],
      ['dm with public_replies', { trigger: 'dm', public_replies: ['hi'] }, 'public_replies'],
      ['story_reply with next_post', { trigger: 'story_reply', next_post: true }, 'next_post'],
      ['dm with reel_caption', { trigger: 'dm', reel_caption: 'my reel' }, 'reel_caption'],
      ['dm with skip_if_answered', { trigger: 'dm', skip_if_answered: true }, 'skip_if_answered'],
      ['null name', { name: null }, 'name'],
      ['keywords not an array', { keywords: 'guide' }, 'keywords'],
      ['active not boolean', { active: 'yes' }, 'active'],
      ['priority not integer', { priority: '5' }, 'priority'],
      ['next_post with media_ids', { next_post: true, media_ids: ['1'] }, 'media_ids'],
      ['reel_caption without next_post', { reel_caption: 'my reel' }, 'reel_caption'],
    ])('refuses %s with 400 naming the field', async (_label, body, field) => {
      const res = await post('/automations', body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toContain(field);
    });

    it('accepts a webhook host that does not resolve now (delivery checks the addresses again)', async () => {
      const a = await create({ keywords: ['w'], webhook_url: 'https://does-not-exist.invalid/hook' });
      expect(a.webhook_url).toBe('https://does-not-exist.invalid/hook');
    });

    it('accepts comment-only fields in their off state for dm triggers', async () => {
      const a = await create({ trigger: 'dm', keywords: ['hi'], media_ids: null, next_post: false, public_replies: [] });
      expect(a).toMatchObject({ trigger: 'dm', media_ids: null, next_post: false, public_replies: [] });
    });

    it('refuses a body that is not an object', async () => {
      const res = await ctx.t.http.post('/api/v1/automations').set(auth()).set('content-type', 'application/json').send('[1]');
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    });
  });

  describe('notes', () => {
    it('warns about gates and reminders without a link, email gate repeats, next_post without caption or time', async () => {
      const res = await post('/automations', {
        keywords: ['x1'],
        follow_gate: true,
        email_gate: true,
        once_per_user: false,
        follow_up_text: 'reminder',
        follow_up_minutes: 30,
        next_post: true,
      });
      const notes: string[] = res.body.notes;
      expect(notes.some((n) => n.includes('follow_gate') && n.includes('link_url'))).toBe(true);
      expect(notes.some((n) => n.includes('email_gate') && n.includes('once_per_user'))).toBe(true);
      expect(notes.some((n) => n.startsWith('Follow-up without link_url'))).toBe(true);
      expect(notes.some((n) => n.includes('next_post without reel_caption or reel_publish_at'))).toBe(true);
    });

    it('warns about keywords overlapping another active automation', async () => {
      const live = await create({ name: 'Live one', keywords: ['Promo', 'other'] });
      await post(`/automations/${live.id}/go_live`).expect(200);
      const res = await post('/automations', { keywords: ['promo!'], match_mode: 'contains' });
      expect(res.body.notes.some((n: string) => n.includes('Live one') && n.includes('promo!'))).toBe(true);
      const unrelated = await post('/automations', { keywords: ['unrelated'] });
      expect(unrelated.body.notes.some((n: string) => n.includes('overlap'))).toBe(false);
      await post(`/automations/${live.id}/pause`).expect(200);
    });
  });

  describe('lifecycle', () => {
    it('go_live, pause, resume with their conflicts', async () => {
      const a = await create({ keywords: ['life'] });
      expect((await post(`/automations/${a.id}/pause`)).status).toBe(409);
      expect((await post(`/automations/${a.id}/resume`)).status).toBe(409);
      const live = await post(`/automations/${a.id}/go_live`);
      expect(live.status).toBe(200);
      expect(live.body).toMatchObject({ id: a.id, status: 'active', active: true });
      const again = await post(`/automations/${a.id}/go_live`);
      expect(again.status).toBe(409);
      expect(again.body.error).toContain('active');
      const paused = await post(`/automations/${a.id}/pause`);
      expect(paused.body).toMatchObject({ status: 'paused', active: false });
      expect((await post(`/automations/${a.id}/pause`)).body.status).toBe('paused');
      const resumed = await post(`/automations/${a.id}/resume`);
      expect(resumed.body).toMatchObject({ status: 'active', active: true });
      const switchedOff = await patch(`/automations/${a.id}`, { active: false });
      expect(switchedOff.body.automation).toMatchObject({ status: 'paused', active: false });
      const switchedOn = await patch(`/automations/${a.id}`, { active: true });
      expect(switchedOn.body.automation).toMatchObject({ status: 'active', active: true });
    });

    it('PATCH applies the same rules, keeps the secret on ***, and resets comment-only fields when the trigger changes', async () => {
      const a = await create({ keywords: ['p1'], media_ids: ['m1'], webhook_secret: 'keep-me' });
      const changed = await patch(`/automations/${a.id}`, { keywords: ['p2'], webhook_secret: '***' });
      expect(changed.status).toBe(200);
      expect(changed.body.automation.keywords).toEqual(['p2']);
      const [{ webhook_secret }] = await ctx.ds.query(`SELECT webhook_secret FROM ${ctx.schema}.automations WHERE id = $1`, [a.id]);
      expect(webhook_secret).toBe('keep-me');
      const toDm = await patch(`/automations/${a.id}`, { trigger: 'dm' });
      expect(toDm.body.automation).toMatchObject({ trigger: 'dm', media_ids: null });
      expect((await patch(`/automations/${a.id}`, { public_replies: ['x'] })).status).toBe(400);
      expect((await patch(`/automations/${a.id}`, { follow_up_minutes: 2000 })).status).toBe(400);
      expect((await patch(`/automations/${a.id}`, { nope: 1 })).status).toBe(400);
      expect((await patch('/automations/999999', { name: 'x' })).status).toBe(404);
    });

    it('DELETE removes the automation', async () => {
      const a = await create({ keywords: ['bye'] });
      await ctx.t.http.delete(`/api/v1/automations/${a.id}`).set(auth()).expect(204);
      const res = await get(`/automations/${a.id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toContain(String(a.id));
      expect((await get('/automations/abc')).status).toBe(400);
    });
  });

  describe('next_post and attach', () => {
    it('waits, shows the suggestion, attaches on confirmation, and 409s without one', async () => {
      const a = await create({ keywords: ['reel'], next_post: true, reel_caption: 'Big Launch', reel_publish_at: '2026-12-01T18:00:00+01:00' });
      expect(a).toMatchObject({ pending_next: true, reel_status: 'waiting', reel_publish_at: '2026-12-01T17:00:00.000Z' });
      const none = await post(`/automations/${a.id}/attach`);
      expect(none.status).toBe(409);
      expect(none.body.error).toEqual(expect.any(String));
      let summary = (await get('/automations')).body.find((s: { id: number }) => s.id === a.id);
      expect(summary.posts).toBe('next post (waiting)');
      const suggestion = { media_id: 'reel-42', permalink: 'https://instagram.com/reel/42', reason: 'two reels matched', at: new Date().toISOString() };
      await ctx.ds.query(`UPDATE ${ctx.schema}.automations SET reel_suggestion = $2 WHERE id = $1`, [a.id, JSON.stringify(suggestion)]);
      summary = (await get('/automations')).body.find((s: { id: number }) => s.id === a.id);
      expect(summary.reel_suggestion).toEqual(suggestion);
      expect((await post(`/automations/${a.id}/attach`, { media_id: 'other' })).status).toBe(409);
      const attached = await post(`/automations/${a.id}/attach`);
      expect(attached.status).toBe(200);
      expect(attached.body).toMatchObject({ reel_status: 'attached', pending_next: false, reel_media_id: 'reel-42', reel_suggestion: null });
      expect(attached.body.reel_attached_at).toEqual(expect.any(String));
      summary = (await get('/automations')).body.find((s: { id: number }) => s.id === a.id);
      expect(summary.posts).toEqual(['reel-42']);
    });

    it('shows an expired next post', async () => {
      const a = await create({ keywords: ['late'], next_post: true, reel_caption: 'never' });
      await ctx.ds.query(`UPDATE ${ctx.schema}.automations SET reel_status = 'expired', reel_expired_at = now() WHERE id = $1`, [a.id]);
      const summary = (await get('/automations')).body.find((s: { id: number }) => s.id === a.id);
      expect(summary).toMatchObject({ posts: 'next post (expired)', reel_status: 'expired' });
    });
  });

  describe('GET /automations and funnels', () => {
    it('lists summaries with every field and counters from the runs', async () => {
      const a = await create({ name: 'Counted', keywords: ['count'], link_url: 'https://example.com/x', email_gate: true, webhook_url: 'https://93.184.216.34/h' });
      await ctx.insertRun('a', a.id, { link_sent_at: new Date(), clicked_at: new Date(), dm_sent_at: new Date(), email_asked_at: new Date(), email_captured_at: new Date(), state: 'done' });
      await ctx.insertRun('a', a.id, { link_sent_at: new Date(), dm_sent_at: new Date(), state: 'link_sent' });
      await ctx.insertRun('a', a.id, { state: 'skipped_other_tool' });
      await ctx.insertRun('a', a.id, { state: 'error', error: 'boom' });
      const res = await get('/automations');
      expect(res.status).toBe(200);
      const s = res.body.find((x: { id: number }) => x.id === a.id);
      expect(Object.keys(s).sort()).toEqual(SUMMARY_FIELDS);
      expect(s).toMatchObject({
        name: 'Counted',
        status: 'draft',
        active: true,
        trigger: 'comment',
        keywords: ['count'],
        posts: 'all',
        reel_status: null,
        follower_check: false,
        email_gate: true,
        webhook: true,
        link: 'https://example.com/x',
        transition_mode: false,
        origin: null,
        triggered: 4,
        link_sent: 2,
        clicked: 1,
      });
      expect(s.updated_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);

      const funnel = await get(`/automations/${a.id}/funnel`);
      expect(funnel.status).toBe(200);
      expect(Object.keys(funnel.body).sort()).toEqual(FUNNEL_FIELDS);
      expect(funnel.body).toMatchObject({
        id: a.id,
        name: 'Counted',
        trigger: 'comment',
        active: false,
        triggered: 4,
        dm_sent: 2,
        button_tapped: null,
        gated: null,
        gate_passed: null,
        email_asked: 1,
        email_captured: 1,
        email_expired: 0,
        link_sent: 2,
        clicked: 1,
        followed_up: null,
        errors: 1,
        skipped: 0,
        skipped_other_tool: 1,
      });
      const all = await get('/funnel');
      expect(all.status).toBe(200);
      const total = all.body[all.body.length - 1];
      expect(Object.keys(total).sort()).toEqual(FUNNEL_FIELDS);
      expect(total).toMatchObject({ id: null, trigger: 'all', active: expect.any(Number) });
      expect(total.triggered).toBeGreaterThanOrEqual(4);
      expect(all.body.find((f: { id: number }) => f.id === a.id).triggered).toBe(4);
      expect((await get('/automations/999999/funnel')).status).toBe(404);
    });
  });

  describe('POST /preview', () => {
    it('names the automation that would react and the exact messages with {username} filled', async () => {
      const low = await create({ name: 'Low', keywords: ['ebook'], link_url: 'https://example.com/e', opening_button: 'Yes please', opening_text: 'Hi {username}!' });
      const high = await create({ name: 'High', keywords: ['ebook'], priority: 5, link_url: 'https://example.com/h', public_replies: ['Sent, {username}'] });
      await post(`/automations/${low.id}/go_live`).expect(200);
      await post(`/automations/${high.id}/go_live`).expect(200);
      const res = await post('/preview', { text: 'The EBOOK please!', username: 'ann' });
      expect(res.status).toBe(200);
      expect(res.body.match).toMatchObject({ automation_id: high.id, name: 'High', keyword: 'ebook', priority: 5 });
      expect(res.body.match.also_matched).toContain(low.id);
      expect(res.body.steps[0]).toMatchObject({ type: 'public_reply', text: 'Sent, ann' });
      expect(res.body.steps[1]).toMatchObject({ type: 'link_dm', buttons: [{ type: 'web_url', title: 'Open', url: 'https://example.com/h' }] });

      const only = await post('/preview', { text: 'ebook', username: 'bo', automation_id: low.id });
      expect(only.body.steps[0]).toMatchObject({ type: 'opening_dm', text: 'Hi bo!', buttons: [{ type: 'postback', title: 'Yes please' }] });

      const none = await post('/preview', { text: 'nothing here' });
      expect(none.body).toEqual({ match: null, steps: [] });
      const dm = await post('/preview', { text: 'ebook', trigger: 'dm' });
      expect(dm.body.match).toBeNull();
      expect((await post('/preview', { trigger: 'dm' })).status).toBe(400);
      await post(`/automations/${low.id}/pause`).expect(200);
      await post(`/automations/${high.id}/pause`).expect(200);
    });

    it('drafts answer nothing until go_live', async () => {
      await create({ keywords: ['drafty'] });
      expect((await post('/preview', { text: 'drafty' })).body.match).toBeNull();
      expect((await post('/preview', { text: 'drafty', include_drafts: true })).body.match).not.toBeNull();
    });
  });

  describe('import and finish_migration', () => {
    it('imports automations in transition mode and contacts with imported_from', async () => {
      const res = await post('/automations/import', {
        source: 'manychat',
        automations: [{ name: 'Imported', keywords: ['imp'], follow_gate: true, link_url: 'https://example.com/i' }],
        contacts: [
          { ig_id: 'imp-1', username: 'ann', email: 'ann@example.com', tags: ['vip'] },
          { ig_id: 'imp-2', username: 'bo' },
        ],
      });
      expect(res.status).toBe(201);
      const a = res.body.automations[0];
      expect(a).toMatchObject({ origin: 'import', transition_mode: true, imported_from: 'manychat', status: 'draft' });
      expect(res.body.contacts).toEqual({ created: 2, updated: 0 });
      const contact = await get('/contacts/imp-1');
      expect(contact.body).toMatchObject({ imported_from: 'manychat', email: 'ann@example.com', tags: ['vip'], source: 'import:manychat' });

      const again = await post('/automations/import', { source: 'other', contacts: [{ ig_id: 'imp-1', tags: ['new'] }] });
      expect(again.body.contacts).toEqual({ created: 0, updated: 1 });
      expect((await get('/contacts/imp-1')).body).toMatchObject({ imported_from: 'manychat', tags: expect.arrayContaining(['vip', 'new']) });

      const summary = (await get('/automations')).body.find((s: { id: number }) => s.id === a.id);
      expect(summary).toMatchObject({ origin: 'import', transition_mode: true });
      const preview = await post('/preview', { text: 'imp', automation_id: a.id });
      expect(preview.body.steps.map((s: { type: string }) => s.type)).toEqual(['link_dm']);

      const finished = await post(`/automations/${a.id}/finish_migration`);
      expect(finished.status).toBe(200);
      expect(finished.body.transition_mode).toBe(false);
      expect((await post(`/automations/${a.id}/finish_migration`)).status).toBe(409);
      const after = await post('/preview', { text: 'imp', automation_id: a.id });
      expect(after.body.steps.map((s: { type: string }) => s.type)).toEqual(['opening_dm', 'follow_gate', 'link_dm']);
    });

    it('refuses an invalid import as a whole', async () => {
      const before = (await get('/automations')).body.length;
      const res = await post('/automations/import', { source: 'x', automations: [{ keywords: ['ok'] }, { follow_up_minutes: 5000 }] });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('follow_up_minutes');
      expect((await get('/automations')).body.length).toBe(before);
      expect((await post('/automations/import', { source: 'x' })).status).toBe(400);
      expect((await post('/automations/import', { automations: [] })).status).toBe(400);
    });

    it('rolls back what it stored already when a later automation is refused', async () => {
      const before = (await get('/automations')).body.length;
      const createdEvents = (await get('/events?kind=automation_created&limit=100')).body.data.length;
      // The first automation is stored (with its Event) before the second one is refused by the service's own rules.
      const res = await post('/automations/import', {
        source: 'rollback',
        automations: [{ name: 'Stored first', keywords: ['first'] }, { name: 'Refused', trigger: 'dm', skip_if_answered: true }],
        contacts: [{ ig_id: 'rollback-1', username: 'rolled' }],
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('automations.1: skip_if_answered is only allowed for trigger comment');
      expect((await get('/automations')).body.length).toBe(before);
      expect((await get('/events?kind=automation_created&limit=100')).body.data.length).toBe(createdEvents);
      expect((await get('/contacts/rollback-1')).status).toBe(404);
    });
  });
});
