import { bearer, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { JobsWorker } from '../jobs/jobs.worker';

describe('contacts (e2e)', () => {
  let t: EmailTestApp;
  let project: TestProject;
  let cookie: string;
  const sk = () => bearer(project.secretKey);

  beforeAll(async () => {
    t = await startEmailApi();
    ({ project, account: { cookie } } = await newProject(t, 'Contacts') as any);
  });
  afterAll(() => t?.close());

  /** Polls a job until it is finished (the worker runs in the background). */
  async function finished(path: string, key: Record<string, string>): Promise<any> {
    for (let i = 0; i < 400; i++) {
      await t.app.get(JobsWorker).drain();
      const res = await t.http.get(path).set(key).expect(200);
      if (res.body.state === 'completed' || res.body.state === 'failed') return res.body;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`job ${path} did not finish`);
  }

  it('upserts by email with _meta, 201 then 200, merging data (null removes, "" is ignored)', async () => {
    const created = await t.http.post('/contacts').set(sk()).send({ email: ' Ada@Example.com ', data: { plan: 'pro', seats: 3 } }).expect(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^cnt_[0-9a-z]{20}$/), email: 'ada@example.com', subscribed: true, data: { plan: 'pro', seats: 3 }, _meta: { isNew: true, isUpdate: false } });
    expect(new Date(created.body.createdAt).toISOString()).toBe(created.body.createdAt);
    const updated = await t.http.post('/contacts').set(sk()).send({ email: 'ada@example.com', subscribed: false, data: { plan: null, seats: '', city: 'Paris' } }).expect(200);
    expect(updated.body).toMatchObject({ id: created.body.id, subscribed: false, data: { seats: 3, city: 'Paris' }, _meta: { isNew: false, isUpdate: true } });
    expect(updated.body.data).not.toHaveProperty('plan');
    const got = await t.http.get(`/contacts/${created.body.id}`).set(sk()).expect(200);
    expect(got.body).toMatchObject({ email: 'ada@example.com', subscribed: false });
    // the subscription change was recorded as an event
    const events = await t.http.get(`/events/contact/${created.body.id}`).set(sk()).expect(200);
    expect(events.body.data.map((e: { name: string }) => e.name)).toContain('contact.unsubscribed');
  });

  it('patches email, subscription and data; 409 on a taken email; deletes', async () => {
    const a = await t.http.post('/contacts').set(sk()).send({ email: 'patch-a@example.com' }).expect(201);
    await t.http.post('/contacts').set(sk()).send({ email: 'patch-b@example.com' }).expect(201);
    const patched = await t.http.patch(`/contacts/${a.body.id}`).set(sk()).send({ email: 'patch-c@example.com', data: { vip: true } }).expect(200);
    expect(patched.body).toMatchObject({ email: 'patch-c@example.com', data: { vip: true } });
    expect((await t.http.patch(`/contacts/${a.body.id}`).set(sk()).send({ email: 'patch-b@example.com' }).expect(409)).body.error.code).toBe('CONTACT_EMAIL_TAKEN');
    expect((await t.http.patch(`/contacts/${a.body.id}`).set(sk()).send({ data: { email: 'x' } }).expect(422)).body.error.errors[0]).toMatchObject({ field: 'data.email' });
    await t.http.delete(`/contacts/${a.body.id}`).set(sk()).expect(204);
    await t.http.get(`/contacts/${a.body.id}`).set(sk()).expect(404);
  });

  it('pages with a stable cursor while contacts are inserted in between; total only on the first page', async () => {
    const { project: p } = await newProject(t, 'Paging');
    const key = bearer(p.secretKey);
    for (let i = 0; i < 25; i++) await t.http.post('/contacts').set(key).send({ email: `page${String(i).padStart(2, '0')}@example.com` }).expect(201);
    const first = await t.http.get('/contacts?limit=10').set(key).expect(200);
    expect(first.body).toMatchObject({ hasMore: true, total: 25 });
    expect(first.body.data).toHaveLength(10);
    // newest first
    expect(first.body.data[0].email).toBe('page24@example.com');
    for (let i = 0; i < 5; i++) await t.http.post('/contacts').set(key).send({ email: `late${i}@example.com` }).expect(201);
    const seen: string[] = first.body.data.map((c: { email: string }) => c.email);
    let cursor = first.body.cursor;
    while (cursor) {
      const next = await t.http.get(`/contacts?limit=10&cursor=${encodeURIComponent(cursor)}`).set(key).expect(200);
      expect(next.body.total).toBe(0);
      seen.push(...next.body.data.map((c: { email: string }) => c.email));
      cursor = next.body.hasMore ? next.body.cursor : null;
      if (!next.body.hasMore) expect(next.body.cursor).toBeNull();
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect(seen.every((e) => e.startsWith('page'))).toBe(true);
    const fresh = await t.http.get('/contacts').set(key).expect(200);
    expect(fresh.body).toMatchObject({ total: 30, hasMore: true });
    expect(fresh.body.data).toHaveLength(20);
    const search = await t.http.get('/contacts?search=LATE').set(key).expect(200);
    expect(search.body).toMatchObject({ total: 5, hasMore: false });
    expect((await t.http.get('/contacts?search=100%25').set(key).expect(200)).body.total).toBe(0);
    expect((await t.http.get('/contacts?limit=101').set(key).expect(422)).body.error.errors[0].field).toBe('limit');
    expect((await t.http.get('/contacts?cursor=garbage').set(key).expect(400)).body.error.code).toBe('INVALID_CURSOR');
  });

  it('looks up to 500 emails', async () => {
    await t.http.post('/contacts').set(sk()).send({ email: 'known@example.com' }).expect(201);
    const res = await t.http.post('/contacts/lookup').set(sk()).send({ emails: ['KNOWN@example.com', 'unknown@example.com'] }).expect(200);
    expect(res.body).toEqual({ found: [expect.objectContaining({ email: 'known@example.com' })], notFound: ['unknown@example.com'] });
    const tooMany = Array.from({ length: 501 }, (_, i) => `x${i}@example.com`);
    await t.http.post('/contacts/lookup').set(sk()).send({ emails: tooMany }).expect(422);
  });

  it('lists fields with inferred types and coverage, values, usage, and deletes a field', async () => {
    const { project: p } = await newProject(t, 'Fields');
    const key = bearer(p.secretKey);
    await t.http.post('/contacts').set(key).send({ email: 'f1@example.com', data: { plan: 'pro', seats: 3, since: '2026-01-02' } }).expect(201);
    await t.http.post('/contacts').set(key).send({ email: 'f2@example.com', data: { plan: 'free', seats: 1 } }).expect(201);
    await t.http.post('/contacts').set(key).send({ email: 'f3@example.com', data: { plan: 'pro' } }).expect(201);
    await t.http.post('/contacts').set(key).send({ email: 'f4@example.com' }).expect(201);
    const fields = await t.http.get('/contacts/fields').set(key).expect(200);
    expect(fields.body.totalContacts).toBe(4);
    const byName = Object.fromEntries(fields.body.fields.map((f: { field: string }) => [f.field, f]));
    expect(byName.email).toMatchObject({ standard: true, type: 'string', coverage: 100 });
    expect(byName.plan).toMatchObject({ standard: false, path: 'data.plan', type: 'string', count: 3, coverage: 75 });
    expect(byName.seats).toMatchObject({ type: 'number', count: 2, coverage: 50 });
    expect(byName.since).toMatchObject({ type: 'date', count: 1, coverage: 25 });
    const values = await t.http.get('/contacts/fields/plan/values').set(key).expect(200);
    expect(values.body).toEqual({ field: 'plan', values: [{ value: 'pro', count: 2 }, { value: 'free', count: 1 }] });
    expect((await t.http.get('/contacts/fields/data.plan/usage').set(key).expect(200)).body).toMatchObject({ field: 'plan', contacts: 3, inUse: true });
    expect((await t.http.get('/contacts/fields/email/values').set(key).expect(400)).body.error.code).toBe('STANDARD_FIELD');
    expect((await t.http.delete('/contacts/fields/plan').set(key).expect(200)).body).toEqual({ field: 'plan', contactsUpdated: 3 });
    const after = await t.http.get('/contacts/fields').set(key).expect(200);
    expect(after.body.fields.map((f: { field: string }) => f.field)).not.toContain('plan');
  });

  it('imports a CSV in the background: good rows upserted, bad rows reported per row', async () => {
    const { project: p } = await newProject(t, 'Import');
    const key = bearer(p.secretKey);
    await t.http.post('/contacts').set(key).send({ email: 'existing@example.com', data: { city: 'Rome' } }).expect(201);
    const csv = [
      'email,subscribed,first_name,city',
      'new1@example.com,true,Ada,London',
      'not-an-email,true,Bad,Nowhere',
      'EXISTING@example.com,no,,Milan',
      '"quoted@example.com",yes,"Smith, John",Paris',
      ',true,Empty,',
      'maybe@example.com,perhaps,X,Y',
    ].join('\r\n');
    const queued = await t.http.post('/contacts/import').set(key).attach('file', Buffer.from(csv), { filename: 'contacts.csv', contentType: 'text/csv' }).expect(202);
    expect(queued.body).toMatchObject({ jobId: expect.stringMatching(/^job_/), total: 6 });
    const job = await finished(`/contacts/import/${queued.body.jobId}`, key);
    expect(job).toMatchObject({ state: 'completed', progress: 100, total: 6, processed: 6, result: { created: 2, updated: 1, failed: 3, total: 6 } });
    expect(job.errors).toEqual([
      { row: 3, email: 'not-an-email', message: 'invalid email address' },
      { row: 6, email: '', message: 'missing email' },
      { row: 7, email: 'maybe@example.com', message: 'subscribed must be true or false, got "perhaps"' },
    ]);
    const lookup = await t.http.post('/contacts/lookup').set(key).send({ emails: ['new1@example.com', 'existing@example.com', 'quoted@example.com'] }).expect(200);
    expect(lookup.body.notFound).toEqual([]);
    const existing = lookup.body.found.find((c: { email: string }) => c.email === 'existing@example.com');
    const full = await t.http.get(`/contacts/${existing.id}`).set(key).expect(200);
    expect(full.body).toMatchObject({ subscribed: false, data: { city: 'Milan' } });
    const quoted = lookup.body.found.find((c: { email: string }) => c.email === 'quoted@example.com');
    expect((await t.http.get(`/contacts/${quoted.id}`).set(key).expect(200)).body.data).toEqual({ first_name: 'Smith, John', city: 'Paris' });
    // another project cannot see the job
    await t.http.get(`/contacts/import/${queued.body.jobId}`).set(sk()).expect(404);
  });

  it('refuses imports without an email column, with broken quoting, without a file, or over 5 MB', async () => {
    const noEmail = await t.http.post('/contacts/import').set(sk()).attach('file', Buffer.from('name\nAda\n'), 'a.csv').expect(422);
    expect(noEmail.body.error.errors[0]).toMatchObject({ field: 'file', code: 'missing_column' });
    const unterminated = await t.http.post('/contacts/import').set(sk()).attach('file', Buffer.from('email,name\nada@example.com,"Ada\n'), 'q.csv').expect(400);
    expect(unterminated.body.error).toMatchObject({ code: 'INVALID_CSV', message: expect.stringContaining('line 2') });
    await t.http.post('/contacts/import').set(sk()).field('x', 'y').expect(422);
    const big = Buffer.alloc(5 * 1024 * 1024 + 10, 'a');
    const tooLarge = await t.http.post('/contacts/import').set(sk()).attach('file', big, 'big.csv');
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('bulk subscribe, unsubscribe and delete up to 1,000 ids, queued with a pollable job', async () => {
    const { project: p } = await newProject(t, 'Bulk');
    const key = bearer(p.secretKey);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await t.http.post('/contacts').set(key).send({ email: `bulk${i}@example.com`, subscribed: false }).expect(201)).body.id);
    const foreign = (await t.http.post('/contacts').set(sk()).send({ email: 'foreign@example.com' }).expect(201)).body.id;
    const sub = await t.http.post('/contacts/bulk-subscribe').set(key).send({ contactIds: [...ids, foreign] }).expect(202);
    const subJob = await finished(`/contacts/bulk/${sub.body.jobId}`, key);
    expect(subJob).toMatchObject({ state: 'completed', result: { requested: 4, updated: 3, unchanged: 0, notFound: 1 }, errors: [{ row: 4, id: foreign, message: 'contact not found in this project' }] });
    expect((await t.http.get(`/contacts/${ids[0]}`).set(key).expect(200)).body.subscribed).toBe(true);
    expect((await t.http.get(`/contacts/${foreign}`).set(sk()).expect(200)).body.subscribed).toBe(true);
    const unsub = await t.http.post('/contacts/bulk-unsubscribe').set(key).send({ contactIds: [ids[0]] }).expect(202);
    expect((await finished(`/contacts/bulk/${unsub.body.jobId}`, key)).result).toMatchObject({ updated: 1 });
    expect((await t.http.get(`/contacts/${ids[0]}`).set(key).expect(200)).body.subscribed).toBe(false);
    const del = await t.http.post('/contacts/bulk-delete').set(key).send({ contactIds: ids.slice(0, 2) }).expect(202);
    expect((await finished(`/contacts/bulk/${del.body.jobId}`, key)).result).toMatchObject({ deleted: 2 });
    expect((await t.http.get('/contacts').set(key).expect(200)).body.total).toBe(1);
    await t.http.get(`/contacts/bulk/${del.body.jobId}`).set(sk()).expect(404);
    const tooMany = Array.from({ length: 1001 }, (_, i) => `cnt_${i}`);
    expect((await t.http.post('/contacts/bulk-delete').set(key).send({ contactIds: tooMany }).expect(422)).body.error.errors[0].field).toBe('contactIds');
  });

  it('dashboard sessions use the same endpoints with X-Project-Id', async () => {
    const res = await t.http.get('/contacts').set('Cookie', cookie).set('X-Project-Id', project.id).expect(200);
    expect(res.body.total).toBeGreaterThan(0);
  });
});
