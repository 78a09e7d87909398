import type { Response } from 'supertest';
import { bearer, sessionCookie, startEmailApi, type EmailTestApp } from '../../test/helpers';
import { JobsWorker } from '../jobs/jobs.worker';

/** The parts of OpenAPI 3.0 this test reads. */
interface Schema {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  example?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
}
interface ResponseObject {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: Schema }>;
}
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, ResponseObject> }>>;
  components: { schemas: Record<string, Schema> };
}

const ERROR_REF = '#/components/schemas/ErrorEnvelopeDto';

function resolve(doc: Doc, ref: string): Schema {
  const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
  if (!schema) throw new Error(`unresolved $ref ${ref}`);
  return schema;
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

/**
 * Where `value` departs from `schema`: types, nullability, enums, patterns, date-times, required
 * fields, and fields the schema does not document (a response must match its schema exactly).
 */
function mismatches(doc: Doc, schema: Schema, value: unknown, at: string): string[] {
  if (schema.$ref) return mismatches(doc, resolve(doc, schema.$ref), value, at);
  if (value === null) return schema.nullable ? [] : [`${at}: null but not nullable`];
  if (schema.allOf) return schema.allOf.flatMap((s) => mismatches(doc, s, value, at));
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((s) => mismatches(doc, s, value, at).length === 0).length;
    return matching === 1 ? [] : [`${at}: matches ${matching} schemas of oneOf`];
  }
  const actual = typeOf(value);
  if (schema.type && schema.type !== actual && !(schema.type === 'number' && actual === 'integer')) return [`${at}: ${actual}, documented ${schema.type}`];
  const out: string[] = [];
  if (schema.enum && !schema.enum.includes(value)) out.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) out.push(`${at}: "${value}" does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && new Date(value).toISOString() !== value) out.push(`${at}: "${value}" is not an ISO 8601 timestamp`);
    if (schema.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) out.push(`${at}: "${value}" is not a UUID`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => out.push(...mismatches(doc, schema.items!, item, `${at}[${i}]`)));
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) out.push(`${at}.${key}: required but missing`);
    for (const [key, child] of Object.entries(object)) {
      const documented = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (documented) out.push(...mismatches(doc, documented, child, `${at}.${key}`));
      else if (schema.additionalProperties !== true) out.push(`${at}.${key}: not documented`);
    }
  }
  return out;
}

describe('OpenAPI document (e2e)', () => {
  let t: EmailTestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await startEmailApi();
    doc = (await t.http.get('/api/docs-json').expect(200)).body;
  });
  afterAll(() => t?.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, responses: op.responses })));

  it('documents on every operation a success answer with its schema, and every error answer with the error envelope', () => {
    const problems: string[] = [];
    for (const { name, responses } of operations()) {
      const statuses = Object.keys(responses);
      const success = statuses.filter((s) => /^[23]\d\d$/.test(s));
      if (success.length === 0) problems.push(`${name}: no 2xx or 3xx answer`);
      for (const status of success) {
        const r = responses[status];
        if (status === '204') {
          if (r.content) problems.push(`${name} 204: has a body`);
        } else if (status.startsWith('3')) {
          if (!r.headers?.['Location']) problems.push(`${name} ${status}: no Location header`);
        } else if (!r.content || Object.values(r.content).some((c) => !c.schema || Object.keys(c.schema).length === 0)) {
          problems.push(`${name} ${status}: no response schema`);
        }
      }
      const errors = statuses.filter((s) => /^[45]\d\d$/.test(s));
      if (!errors.includes('500')) problems.push(`${name}: 500 not documented`);
      for (const status of errors) {
        const r = responses[status];
        if (r.content?.['application/json']?.schema.$ref !== ERROR_REF || Object.keys(r.content).length !== 1) problems.push(`${name} ${status}: not the error envelope`);
        if (!/`[A-Z][A-Z_]+`/.test(r.description)) problems.push(`${name} ${status}: names no error code`);
      }
    }
    expect(problems).toEqual([]);
    expect(operations().length).toBeGreaterThanOrEqual(57);

    const envelope = resolve(doc, ERROR_REF);
    expect(envelope.required).toEqual(['success', 'error', 'timestamp']);
    expect(resolve(doc, envelope.properties!.error.$ref!).required).toEqual(['code', 'message', 'statusCode', 'requestId', 'suggestion']);

    // Examples must match the patterns they illustrate.
    const badExamples = Object.entries(doc.components.schemas).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, prop]) => prop.pattern && typeof prop.example === 'string' && !new RegExp(prop.pattern).test(prop.example))
        .map(([key]) => `${name}.${key}`),
    );
    expect(badExamples).toEqual([]);
  });

  it('says what POST /v1/track does: it publishes email.event_tracked, which starts the matching workflows off the request path', () => {
    const description = (doc.paths['/v1/track'].post as unknown as { description: string }).description;
    expect(description).toContain('publishes `email.event_tracked`');
    expect(description).toMatch(/starts[^.]*workflows/i);
  });

  it('matches the real answers, field by field', async () => {
    /** Checks that the status is documented for the operation and the body matches its schema exactly. */
    const documented = (res: Response, method: string, path: string) => {
      const responses = doc.paths[path]?.[method]?.responses;
      expect(responses).toBeDefined();
      const entry = responses![String(res.status)];
      expect({ op: `${method} ${path}`, status: res.status, documented: Boolean(entry) }).toEqual({ op: `${method} ${path}`, status: res.status, documented: true });
      if (res.status === 204) return res.body;
      const schema = entry!.content!['application/json'].schema;
      expect({ op: `${method} ${path} ${res.status}`, mismatches: mismatches(doc, schema, res.body, 'body') }).toEqual({ op: `${method} ${path} ${res.status}`, mismatches: [] });
      return res.body;
    };

    const email = `docs.${Date.now()}@example.com`;
    const signup = await t.http.post('/auth/signup').send({ email, password: 'correct horse battery', name: 'Docs' });
    documented(signup, 'post', '/auth/signup');
    const cookie = { Cookie: sessionCookie(signup.headers) };
    documented(await t.http.get('/users/@me').set(cookie), 'get', '/users/@me');
    const project = documented(await t.http.post('/users/@me/projects').set(cookie).send({ name: 'Docs' }), 'post', '/users/@me/projects');
    documented(await t.http.get('/users/@me/projects').set(cookie), 'get', '/users/@me/projects');
    const sk = bearer(project.secretKey);
    documented(await t.http.patch(`/users/@me/projects/${project.id}`).set(sk).send({ name: 'Docs' }), 'patch', '/users/@me/projects/{id}');
    documented(await t.http.post('/auth/login').send({ email, password: 'correct horse battery' }), 'post', '/auth/login');
    documented(await t.http.post('/auth/login').send({ email, password: 'wrong password' }), 'post', '/auth/login');
    documented(await t.http.post('/auth/request-password-reset').send({ email }), 'post', '/auth/request-password-reset');

    const colleague = `docs.colleague.${Date.now()}@example.com`;
    await t.http.post('/auth/signup').send({ email: colleague, password: 'correct horse battery' }).expect(201);
    const member = documented(await t.http.post(`/projects/${project.id}/members`).set(cookie).send({ email: colleague }), 'post', '/projects/{id}/members');
    documented(await t.http.patch(`/projects/${project.id}/members/${member.userId}`).set(cookie).send({ role: 'ADMIN' }), 'patch', '/projects/{id}/members/{userId}');
    documented(await t.http.get(`/users/@me/projects/${project.id}/security`).set(cookie), 'get', '/users/@me/projects/{id}/security');

    const created = documented(await t.http.post('/contacts').set(sk).send({ email: 'ada@example.com', data: { plan: 'pro', since: '2026-01-15' } }), 'post', '/contacts');
    documented(await t.http.post('/contacts').set(sk).send({ email: 'ada@example.com', subscribed: false }), 'post', '/contacts');
    documented(await t.http.get('/contacts?limit=1').set(sk), 'get', '/contacts');
    documented(await t.http.get(`/contacts/${created.id}`).set(sk), 'get', '/contacts/{id}');
    documented(await t.http.patch(`/contacts/${created.id}`).set(sk).send({ data: { seats: 3 } }), 'patch', '/contacts/{id}');
    documented(await t.http.post('/contacts/lookup').set(sk).send({ emails: ['ada@example.com', 'nobody@example.com'] }), 'post', '/contacts/lookup');
    documented(await t.http.get('/contacts/fields').set(sk), 'get', '/contacts/fields');
    documented(await t.http.get('/contacts/fields/plan/values').set(sk), 'get', '/contacts/fields/{field}/values');
    documented(await t.http.get('/contacts/fields/plan/usage').set(sk), 'get', '/contacts/fields/{field}/usage');

    const tracked = documented(await t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email: 'bob@example.com', event: 'signed_up', data: { plan: 'free' } }), 'post', '/v1/track');
    documented(await t.http.post('/events/track').set(sk).send({ email: 'bob@example.com', event: 'upgraded' }), 'post', '/events/track');
    documented(await t.http.get('/events').set(sk), 'get', '/events');
    documented(await t.http.get(`/events/contact/${tracked.data.contact}`).set(sk), 'get', '/events/contact/{contactId}');
    documented(await t.http.get('/events/stats').set(sk), 'get', '/events/stats');
    documented(await t.http.get('/events/names').set(sk), 'get', '/events/names');
    documented(await t.http.get('/events/signed_up/usage').set(sk), 'get', '/events/{eventName}/usage');
    documented(await t.http.delete('/events/upgraded').set(sk), 'delete', '/events/{eventName}');

    // SMTP_URL is unset here: stored, with the note.
    documented(await t.http.post('/v1/send').set(sk).send({ to: ['ada@example.com', { name: 'Bob', email: 'bob@example.com' }], subject: 'Hi', body: '<p>Hi</p>' }), 'post', '/v1/send');
    documented(await t.http.post('/v1/verify').set(sk).send({ email: 'not-an-address' }), 'post', '/v1/verify');
    documented(await t.http.get('/activity').set(sk), 'get', '/activity');
    documented(await t.http.get('/activity/stats').set(sk), 'get', '/activity/stats');
    documented(await t.http.get('/activity/recent-count').set(sk), 'get', '/activity/recent-count');
    documented(await t.http.get('/activity/types').set(sk), 'get', '/activity/types');

    const csv = 'email,subscribed,city\ncarol@example.com,yes,Paris\nnot-an-email,,\n';
    const queued = documented(await t.http.post('/contacts/import').set(sk).attach('file', Buffer.from(csv), 'contacts.csv'), 'post', '/contacts/import');
    const bulk = documented(await t.http.post('/contacts/bulk-unsubscribe').set(sk).send({ contactIds: [created.id, 'cnt_missing'] }), 'post', '/contacts/bulk-unsubscribe');
    await t.app.get(JobsWorker).drain();
    expect(documented(await t.http.get(`/contacts/import/${queued.jobId}`).set(sk), 'get', '/contacts/import/{jobId}')).toMatchObject({ state: 'completed', errors: [{ row: 3 }] });
    expect(documented(await t.http.get(`/contacts/bulk/${bulk.jobId}`).set(sk), 'get', '/contacts/bulk/{jobId}')).toMatchObject({ state: 'completed', result: { notFound: 1 } });

    documented(await t.http.get(`/projects/${project.id}/setup-state`).set(sk), 'get', '/projects/{id}/setup-state');
    documented(await t.http.get(`/projects/${project.id}/security`).set(sk), 'get', '/projects/{id}/security');
    documented(await t.http.get(`/projects/${project.id}/members`).set(cookie), 'get', '/projects/{id}/members');
    documented(await t.http.get('/config'), 'get', '/config');
    documented(await t.http.get('/auth/oauth-config'), 'get', '/auth/oauth-config');
    documented(await t.http.get('/auth/logout'), 'get', '/auth/logout');

    // Errors: the envelope, with field-level errors on a 422.
    documented(await t.http.get('/contacts'), 'get', '/contacts');
    documented(await t.http.get('/contacts/cnt_00000000000000000000').set(sk), 'get', '/contacts/{id}');
    const invalid = documented(await t.http.post('/contacts').set(sk).send({ email: 'nope', extra: 1 }), 'post', '/contacts');
    expect(invalid.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'extra']);
    documented(await t.http.post('/v1/send').set(bearer(project.publicKey)).send({}), 'post', '/v1/send');

    documented(await t.http.delete(`/contacts/${created.id}`).set(sk), 'delete', '/contacts/{id}');
    documented(await t.http.post(`/users/@me/projects/${project.id}/reset`).set(sk).send({ confirm: 'Docs' }), 'post', '/users/@me/projects/{id}/reset');
    documented(await t.http.post(`/users/@me/projects/${project.id}/regenerate-keys`).set(cookie), 'post', '/users/@me/projects/{id}/regenerate-keys');
  });
});
