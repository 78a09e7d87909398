import { Database } from '@platform/database';
import { bearer, newAccount, newProject, startEmailApi, type EmailTestApp } from '../../test/helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectError(body: any, status: number, code: string) {
  expect(body).toEqual({
    success: false,
    error: expect.objectContaining({ code, statusCode: status, message: expect.any(String), requestId: expect.stringMatching(UUID), suggestion: expect.any(String) }),
    timestamp: expect.any(String),
  });
  expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
}

describe('keys, projects and errors (e2e)', () => {
  let t: EmailTestApp;
  beforeAll(async () => {
    t = await startEmailApi();
  });
  afterAll(() => t?.close());

  it('creates a project with one pk_ and one sk_ key; the secret key is shown once and stored hashed', async () => {
    const { account, project } = await newProject(t, 'Keys');
    expect(project.publicKey).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
    expect(project.secretKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    const list = await t.http.get('/users/@me/projects').set('Cookie', account.cookie).expect(200);
    expect(list.body).toEqual([expect.objectContaining({ id: project.id, publicKey: project.publicKey, secretKeyHint: `sk_…${project.secretKey.slice(-4)}`, role: 'OWNER' })]);
    expect(JSON.stringify(list.body)).not.toContain(project.secretKey);
    const rows = await t.app.get(Database).rows<{ secret_key_hash: string }>(`SELECT secret_key_hash FROM ${t.config.DATABASE_SCHEMA}.projects WHERE id = $1`, [project.id]);
    expect(rows[0].secret_key_hash).not.toContain(project.secretKey);
  });

  it('takes the project from the key: the secret key works everywhere, the public key only on POST /v1/track (not even its /events/track alias)', async () => {
    const { project } = await newProject(t);
    await t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email: 'a@example.com', event: 'signup' }).expect(200);
    await t.http.post('/v1/track').set(bearer(project.secretKey)).send({ email: 'b@example.com', event: 'signup' }).expect(200);
    for (const [method, path, body] of [
      ['get', '/contacts', undefined],
      ['post', '/v1/send', { to: 'a@example.com', subject: 's', body: 'b' }],
      ['post', '/v1/verify', { email: 'a@example.com' }],
      ['get', '/events', undefined],
      ['get', '/activity', undefined],
      ['post', '/events/track', { email: 'a@example.com', event: 'x' }],
    ] as const) {
      const req = (t.http as any)[method](path).set(bearer(project.publicKey));
      const res = await (body ? req.send(body) : req);
      expect(res.status).toBe(401);
      expectError(res.body, 401, 'INVALID_API_KEY');
    }
    const contacts = await t.http.get('/contacts').set(bearer(project.secretKey)).expect(200);
    expect(contacts.body.data.map((c: { email: string }) => c.email).sort()).toEqual(['a@example.com', 'b@example.com']);
    // the public key never reaches the project's settings either
    for (const [method, path] of [
      ['get', `/projects/${project.id}/setup-state`],
      ['get', `/projects/${project.id}/members`],
      ['get', `/users/@me/projects/${project.id}/security`],
      ['post', `/users/@me/projects/${project.id}/regenerate-keys`],
    ] as const) {
      expectError((await (t.http as any)[method](path).set(bearer(project.publicKey)).expect(401)).body, 401, 'INVALID_API_KEY');
    }
  });

  it('answers 401 for a missing or unknown key and 403 for a disabled project', async () => {
    const missing = await t.http.get('/contacts').expect(401);
    expectError(missing.body, 401, 'MISSING_AUTH');
    const unknown = await t.http.get('/contacts').set(bearer('sk_nope')).expect(401);
    expectError(unknown.body, 401, 'INVALID_API_KEY');
    const badScheme = await t.http.post('/v1/track').set('Authorization', 'Basic abc').send({ email: 'a@example.com', event: 'x' }).expect(401);
    expectError(badScheme.body, 401, 'INVALID_API_KEY');
    const { account, project } = await newProject(t);
    await t.app.get(Database).affected(`UPDATE ${t.config.DATABASE_SCHEMA}.projects SET disabled = true, disabled_reason = 'MANUAL' WHERE id = $1`, [project.id]);
    const disabled = await t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email: 'a@example.com', event: 'x' }).expect(403);
    expectError(disabled.body, 403, 'PROJECT_DISABLED');
    // sends and writes are refused on every public endpoint with either key, and on the dashboard with the key or a session
    const sk = bearer(project.secretKey);
    const session = { Cookie: account.cookie, 'X-Project-Id': project.id };
    for (const res of [
      await t.http.post('/v1/track').set(sk).send({ email: 'a@example.com', event: 'x' }),
      await t.http.post('/v1/send').set(sk).send({ to: 'a@example.com', subject: 's', body: 'b' }),
      await t.http.post('/v1/verify').set(sk).send({ email: 'a@example.com' }),
      await t.http.post('/contacts').set(sk).send({ email: 'a@example.com' }),
      await t.http.post('/contacts').set(session).send({ email: 'a@example.com' }),
      await t.http.post('/campaigns').set(session).send({ name: 'x' }),
    ]) {
      expect(res.status).toBe(403);
      expectError(res.body, 403, 'PROJECT_DISABLED');
    }
    // reads still answer, and the project's settings stay reachable (a project disabled for non-payment can be fixed)
    await t.http.get('/contacts').set(sk).expect(200);
    await t.http.get('/contacts').set(session).expect(200);
    await t.http.get(`/projects/${project.id}/setup-state`).set('Cookie', account.cookie).expect(200);
    await t.http.get(`/users/@me/projects/${project.id}/security`).set('Cookie', account.cookie).expect(200);
    const renamed = await t.http.patch(`/users/@me/projects/${project.id}`).set('Cookie', account.cookie).send({ name: 'Renamed while disabled' }).expect(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed while disabled', disabled: true });
    const stored = await t.app.get(Database).rows<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.config.DATABASE_SCHEMA}.contacts WHERE project_id = $1`, [project.id]);
    expect(stored[0].n).toBe(0);
  });

  it('rotates both keys at once; the old keys stop working immediately', async () => {
    const { account, project } = await newProject(t);
    await t.http.get('/contacts').set(bearer(project.secretKey)).expect(200);
    const rotated = await t.http.post(`/users/@me/projects/${project.id}/regenerate-keys`).set('Cookie', account.cookie).expect(200);
    expect(rotated.body.publicKey).toMatch(/^pk_/);
    expect(rotated.body.secretKey).toMatch(/^sk_/);
    expect(rotated.body.publicKey).not.toBe(project.publicKey);
    expect(rotated.body.secretKey).not.toBe(project.secretKey);
    expectError((await t.http.get('/contacts').set(bearer(project.secretKey)).expect(401)).body, 401, 'INVALID_API_KEY');
    expectError((await t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email: 'a@example.com', event: 'x' }).expect(401)).body, 401, 'INVALID_API_KEY');
    await t.http.get('/contacts').set(bearer(rotated.body.secretKey)).expect(200);
    await t.http.post('/v1/track').set(bearer(rotated.body.publicKey)).send({ email: 'a@example.com', event: 'x' }).expect(200);
    // Public keys looked up at once (one statement for the keys that wait together): each request gets its own key's project.
    const { project: other } = await newProject(t, 'Other key');
    const keys = [project.publicKey, rotated.body.publicKey, other.publicKey, rotated.body.publicKey, other.publicKey, project.publicKey];
    const statuses = await Promise.all(keys.map((key, i) => t.http.post('/v1/track').set(bearer(key)).send({ email: `at-once-${i}@example.com`, event: 'x' }).then((r) => r.status)));
    expect(statuses).toEqual([401, 200, 200, 200, 200, 401]);
    const owners = await t.app.get(Database).rows<{ email: string; project_id: string }>(
      `SELECT email, project_id FROM ${t.config.DATABASE_SCHEMA}.contacts WHERE email LIKE 'at-once-%' ORDER BY email`,
    );
    expect(owners).toEqual([
      { email: 'at-once-1@example.com', project_id: project.id },
      { email: 'at-once-2@example.com', project_id: other.id },
      { email: 'at-once-3@example.com', project_id: project.id },
      { email: 'at-once-4@example.com', project_id: other.id },
    ]);
  });

  it('lets the secret key manage its own project under /users/@me/projects/:id, never another one', async () => {
    const { project } = await newProject(t, 'Key managed');
    const other = await newProject(t, 'Other');
    const sk = bearer(project.secretKey);
    expect((await t.http.get(`/users/@me/projects/${project.id}/security`).set(sk).expect(200)).body.keys.publicKey).toBe(project.publicKey);
    expect((await t.http.patch(`/users/@me/projects/${project.id}`).set(sk).send({ name: 'Renamed by key' }).expect(200)).body.name).toBe('Renamed by key');
    expectError((await t.http.post(`/users/@me/projects/${other.project.id}/regenerate-keys`).set(sk).expect(404)).body, 404, 'PROJECT_NOT_FOUND');
    await t.http.get('/contacts').set(bearer(other.project.secretKey)).expect(200);
    const rotated = await t.http.post(`/users/@me/projects/${project.id}/regenerate-keys`).set(sk).expect(200);
    expect(rotated.body.secretKey).toMatch(/^sk_/);
    expectError((await t.http.get(`/users/@me/projects/${project.id}/security`).set(sk).expect(401)).body, 401, 'INVALID_API_KEY');
    await t.http.get(`/users/@me/projects/${project.id}/security`).set(bearer(rotated.body.secretKey)).expect(200);
    // user-level routes need a session: a key is no user
    expectError((await t.http.get('/users/@me').set(bearer(rotated.body.secretKey)).expect(401)).body, 401, 'UNAUTHORIZED');
  });

  it('keeps projects apart: a key never reaches another project', async () => {
    const a = await newProject(t, 'A');
    const b = await newProject(t, 'B');
    const created = await t.http.post('/contacts').set(bearer(a.project.secretKey)).send({ email: 'only-a@example.com' }).expect(201);
    await t.http.get(`/contacts/${created.body.id}`).set(bearer(b.project.secretKey)).expect(404);
    await t.http.patch(`/contacts/${created.body.id}`).set(bearer(b.project.secretKey)).send({ subscribed: false }).expect(404);
    await t.http.delete(`/contacts/${created.body.id}`).set(bearer(b.project.secretKey)).expect(404);
    expect((await t.http.get('/contacts').set(bearer(b.project.secretKey)).expect(200)).body.total).toBe(0);
    // dashboard: a session may only pick its own projects
    await t.http.get('/contacts').set('Cookie', b.account.cookie).set('X-Project-Id', a.project.id).expect(403);
    await t.http.get(`/projects/${a.project.id}/members`).set('Cookie', b.account.cookie).expect(404);
    await t.http.get(`/projects/${a.project.id}/members`).set(bearer(b.project.secretKey)).expect(404);
    await t.http.post(`/users/@me/projects/${a.project.id}/regenerate-keys`).set('Cookie', b.account.cookie).expect(404);
    const own = await t.http.get('/contacts').set('Cookie', a.account.cookie).set('X-Project-Id', a.project.id).expect(200);
    expect(own.body.data).toHaveLength(1);
  });

  it('keeps every resource per project: fields, events, activity, lookup, idempotency keys and project settings', async () => {
    const a = await newProject(t, 'Iso A');
    const b = await newProject(t, 'Iso B');
    const ka = bearer(a.project.secretKey);
    const kb = bearer(b.project.secretKey);
    const tracked = await t.http.post('/v1/track').set(ka).set('Idempotency-Key', 'shared-key').send({ email: 'iso@example.com', event: 'a_only', data: { secret: 'x' } }).expect(200);
    await t.http.post('/v1/send').set(ka).send({ to: 'iso@example.com', subject: 'A mail', body: 'b' }).expect(200);
    // the same Idempotency-Key in another project is another key
    const other = await t.http.post('/v1/track').set(kb).set('Idempotency-Key', 'shared-key').send({ email: 'b@example.com', event: 'b_event' }).expect(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.data.contact).not.toBe(tracked.body.data.contact);

    expect((await t.http.get('/contacts/fields').set(kb).expect(200)).body.fields.map((f: { field: string }) => f.field)).not.toContain('secret');
    expect((await t.http.get('/contacts/fields/secret/values').set(kb).expect(200)).body.values).toEqual([]);
    expect((await t.http.get('/contacts/fields/secret/usage').set(kb).expect(200)).body).toMatchObject({ contacts: 0, inUse: false });
    expect((await t.http.delete('/contacts/fields/secret').set(kb).expect(200)).body.contactsUpdated).toBe(0);
    expect((await t.http.post('/contacts/lookup').set(kb).send({ emails: ['iso@example.com'] }).expect(200)).body.notFound).toEqual(['iso@example.com']);
    await t.http.get(`/events/contact/${tracked.body.data.contact}`).set(kb).expect(404);
    await t.http.get('/events/a_only/usage').set(kb).expect(404);
    await t.http.delete('/events/a_only').set(kb).expect(404);
    expect((await t.http.get('/events').set(kb).expect(200)).body.data.map((e: { name: string }) => e.name)).toEqual(['b_event']);
    expect((await t.http.get('/events/stats').set(kb).expect(200)).body.total).toBe(1);
    expect((await t.http.get('/activity/types').set(kb).expect(200)).body).toEqual(['event']);
    expect((await t.http.get('/activity/stats').set(kb).expect(200)).body.total).toBe(1);
    expect((await t.http.get('/activity/recent-count').set(kb).expect(200)).body.count).toBe(1);
    expect((await t.http.get(`/activity?contactId=${tracked.body.data.contact}`).set(kb).expect(200)).body.total).toBe(0);
    for (const path of [`/projects/${a.project.id}/setup-state`, `/projects/${a.project.id}/security`, `/users/@me/projects/${a.project.id}/security`]) {
      expectError((await t.http.get(path).set(kb).expect(404)).body, 404, 'PROJECT_NOT_FOUND');
      await t.http.get(path).set('Cookie', b.account.cookie).expect(404);
    }
    await t.http.post(`/projects/${a.project.id}/members`).set(kb).send({ email: b.account.email }).expect(404);
    await t.http.post(`/users/@me/projects/${a.project.id}/reset`).set(kb).send({ confirm: 'Iso A' }).expect(404);
    await t.http.delete(`/users/@me/projects/${a.project.id}`).set(kb).expect(404);

    // project A still has all of it
    expect((await t.http.get('/contacts/fields/secret/usage').set(ka).expect(200)).body.contacts).toBe(1);
    expect((await t.http.get('/events/a_only/usage').set(ka).expect(200)).body.count).toBe(1);
    expect((await t.http.get('/activity/stats').set(ka).expect(200)).body).toMatchObject({ total: 2, events: 1, emails: 1 });
    expect((await t.http.get(`/users/@me/projects/${a.project.id}/security`).set(ka).expect(200)).body.projectId).toBe(a.project.id);
  });

  it('dashboard sessions need a project header and membership', async () => {
    const { account } = await newProject(t);
    expectError((await t.http.get('/contacts').set('Cookie', account.cookie).expect(400)).body, 400, 'MISSING_PROJECT');
    expectError((await t.http.get('/contacts').set('Cookie', account.cookie).set('X-Project-Id', 'nope').expect(403)).body, 403, 'PROJECT_ACCESS_DENIED');
    expectError((await t.http.get('/contacts').set('Cookie', 'email_session=garbage').set('X-Project-Id', 'x').expect(401)).body, 401, 'UNAUTHORIZED');
  });

  it('renders every error in the envelope: 400 malformed JSON, 404, 422 with field errors, and echoes the request id', async () => {
    const { project } = await newProject(t);
    const malformed = await t.http.post('/v1/track').set(bearer(project.secretKey)).set('Content-Type', 'application/json').send('{"email": ').expect(400);
    expectError(malformed.body, 400, 'BAD_REQUEST');
    const notFound = await t.http.get('/contacts/cnt_missing').set(bearer(project.secretKey)).expect(404);
    expectError(notFound.body, 404, 'CONTACT_NOT_FOUND');
    const invalid = await t.http.post('/v1/track').set(bearer(project.secretKey)).set('X-Request-Id', 'b9d2b1f4-4a53-4b8e-9a44-2b1f4e0c9d11').send({ email: 'not-an-email', event: '' }).expect(422);
    expectError(invalid.body, 422, 'VALIDATION_ERROR');
    expect(invalid.body.error.requestId).toBe('b9d2b1f4-4a53-4b8e-9a44-2b1f4e0c9d11');
    expect(invalid.headers['x-request-id']).toBe('b9d2b1f4-4a53-4b8e-9a44-2b1f4e0c9d11');
    expect(invalid.body.error.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'email', code: 'invalid_string' }),
        expect.objectContaining({ field: 'event', code: expect.any(String) }),
      ]),
    );
    const unknownRoute = await t.http.get('/nowhere').expect(404);
    expectError(unknownRoute.body, 404, 'NOT_FOUND');
  });

  it('refuses NUL characters (which PostgreSQL cannot store) with 422 naming the field, never a 500', async () => {
    const { project } = await newProject(t);
    const sk = bearer(project.secretKey);
    const cases: Array<[Promise<any>, string]> = [
      [t.http.post('/v1/track').set(sk).send({ email: 'nul@example.com', event: 'a\u0000b' }), 'event'],
      [t.http.post('/v1/track').set(sk).send({ email: 'nul@example.com', event: 'e', data: { note: 'x\u0000' } }), 'data.note'],
      [t.http.post('/contacts').set(sk).send({ email: 'nul@example.com', data: { 'k\u0000': 1 } }), 'data.k\u0000'],
      [t.http.post('/v1/send').set(sk).send({ to: 'nul@example.com', subject: 's', body: 'a\u0000' }), 'body'],
      [t.http.get('/contacts?search=%00').set(sk), 'search'],
      [t.http.get('/contacts/cnt_%00').set(sk), 'id'],
      [t.http.delete('/events/a%00b').set(sk), 'eventName'],
      [t.http.get('/contacts/fields/a%00/values').set(sk), 'field'],
    ];
    for (const [request, field] of cases) {
      const res = await request;
      expect(res.status).toBe(422);
      expectError(res.body, 422, 'VALIDATION_ERROR');
      expect(res.body.error.errors).toContainEqual(expect.objectContaining({ field }));
    }
    const cursor = Buffer.from(JSON.stringify(['2026-11-22T10:00:00.000Z', 'cnt_\u0000'])).toString('base64url');
    expectError((await t.http.get(`/contacts?cursor=${cursor}`).set(sk).expect(400)).body, 400, 'INVALID_CURSOR');
    const csv = await t.http.post('/contacts/import').set(sk).attach('file', Buffer.from('email\nnul\u0000@example.com\n'), 'nul.csv').expect(400);
    expectError(csv.body, 400, 'INVALID_CSV');
    expect((await t.http.get('/contacts').set(sk).expect(200)).body.total).toBe(0);
  });

  it('refuses JSON nested deeper than 32 levels with 422 instead of overflowing the stack', async () => {
    const { project } = await newProject(t);
    const nested = (depth: number) => `{"email":"deep@example.com","event":"e","data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const deep = await t.http.post('/v1/track').set(bearer(project.secretKey)).set('Content-Type', 'application/json').send(nested(5000)).expect(422);
    expectError(deep.body, 422, 'VALIDATION_ERROR');
    expect(deep.body.error.errors).toEqual([expect.objectContaining({ field: 'data.a', code: 'too_deep' })]);
    await t.http.post('/v1/track').set(bearer(project.secretKey)).set('Content-Type', 'application/json').send(nested(30)).expect(200);
  });

  it('GET /config needs no auth and reports the feature flags', async () => {
    const res = await t.http.get('/config').expect(200);
    expect(res.body).toMatchObject({ signups: true, smtp: false, oauthProviders: [], rateLimitPerMinute: 1000 });
  });

  it('members: owners add, promote and remove; the last owner stays; members cannot manage', async () => {
    const { account: owner, project } = await newProject(t, 'Team');
    const other = await newAccount(t, 'member');
    const cookie = owner.cookie;
    await t.http.post(`/projects/${project.id}/members`).set('Cookie', cookie).send({ email: 'ghost@example.com' }).expect(404);
    const added = await t.http.post(`/projects/${project.id}/members`).set('Cookie', cookie).send({ email: other.email }).expect(201);
    expect(added.body).toMatchObject({ userId: other.userId, role: 'MEMBER' });
    await t.http.post(`/projects/${project.id}/members`).set('Cookie', cookie).send({ email: other.email }).expect(409);
    // the member sees the project, but cannot rotate keys or add people
    await t.http.get('/contacts').set('Cookie', other.cookie).set('X-Project-Id', project.id).expect(200);
    await t.http.post(`/users/@me/projects/${project.id}/regenerate-keys`).set('Cookie', other.cookie).expect(403);
    await t.http.post(`/projects/${project.id}/members`).set('Cookie', other.cookie).send({ email: owner.email, role: 'ADMIN' }).expect(403);
    // the only owner cannot be demoted or removed
    expect((await t.http.patch(`/projects/${project.id}/members/${owner.userId}`).set('Cookie', cookie).send({ role: 'ADMIN' }).expect(409)).body.error.code).toBe('LAST_OWNER');
    await t.http.delete(`/projects/${project.id}/members/${owner.userId}`).set('Cookie', cookie).expect(409);
    await t.http.patch(`/projects/${project.id}/members/${other.userId}`).set('Cookie', cookie).send({ role: 'OWNER' }).expect(200);
    await t.http.patch(`/projects/${project.id}/members/${owner.userId}`).set('Cookie', cookie).send({ role: 'ADMIN' }).expect(200);
    const members = await t.http.get(`/projects/${project.id}/members`).set(bearer(project.secretKey)).expect(200);
    expect(members.body.map((m: { role: string }) => m.role).sort()).toEqual(['ADMIN', 'OWNER']);
    await t.http.delete(`/projects/${project.id}/members/${owner.userId}`).set('Cookie', other.cookie).expect(204);
    await t.http.get('/contacts').set('Cookie', cookie).set('X-Project-Id', project.id).expect(403);
  });

  it('setup-state, security, rename, reset (confirmed) and delete', async () => {
    const { account, project } = await newProject(t, 'Wipe me');
    const cookie = account.cookie;
    expect((await t.http.get(`/projects/${project.id}/setup-state`).set('Cookie', cookie).expect(200)).body).toMatchObject({ hasContacts: false, hasEvents: false });
    await t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email: 'x@example.com', event: 'e' }).expect(200);
    expect((await t.http.get(`/projects/${project.id}/setup-state`).set(bearer(project.secretKey)).expect(200)).body).toMatchObject({ hasContacts: true, hasEvents: true });
    const security = await t.http.get(`/users/@me/projects/${project.id}/security`).set('Cookie', cookie).expect(200);
    expect(security.body).toMatchObject({ disabled: false, owners: 1, keys: { publicKey: project.publicKey } });
    expect((await t.http.get(`/projects/${project.id}/security`).set('Cookie', cookie).expect(200)).body.keys.publicKey).toBe(project.publicKey);
    expect((await t.http.patch(`/users/@me/projects/${project.id}`).set('Cookie', cookie).send({ name: 'Renamed' }).expect(200)).body.name).toBe('Renamed');
    expectError((await t.http.post(`/users/@me/projects/${project.id}/reset`).set('Cookie', cookie).send({ confirm: 'Wipe me' }).expect(400)).body, 400, 'CONFIRMATION_MISMATCH');
    const reset = await t.http.post(`/users/@me/projects/${project.id}/reset`).set('Cookie', cookie).send({ confirm: 'Renamed' }).expect(200);
    expect(reset.body.deleted).toMatchObject({ contacts: 1, events: 1 });
    expect((await t.http.get('/contacts').set(bearer(project.secretKey)).expect(200)).body.total).toBe(0);
    await t.http.delete(`/users/@me/projects/${project.id}`).set('Cookie', cookie).expect(204);
    await t.http.get('/contacts').set(bearer(project.secretKey)).expect(401);
    expect((await t.http.get('/users/@me/projects').set('Cookie', cookie).expect(200)).body).toEqual([]);
  });
});
