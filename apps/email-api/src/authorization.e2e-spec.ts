// The authorization matrix of email-api: every operation of its OpenAPI document sent with no
// credential, a wrong key, another project's secret key and a MEMBER's dashboard session, each
// answered as the README and Swagger document it, and no answer but the member's showing the owner
// project's data. Records are created once; a row that deletes or wipes gets a record of its own.
import type { AddressInfo } from 'node:net';
import { Database } from '@platform/database';
import { describeAuthorizationMatrix, fetchDocument, operationsOf, startFakeDnsServer, type FakeDnsServer, type MatrixRow } from '@platform/testing';
import { bearer, newAccount, newProject, startEmailApi, type EmailTestApp, type TestAccount, type TestProject } from '../test/helpers';
import { verifiedDomain } from '../test/marketing';

interface Ctx {
  project: TestProject;
  owner: TestAccount;
  member: TestAccount;
  admin2: TestAccount;
  doomedMember: TestAccount;
  invitee: TestAccount;
  other: { account: TestAccount; project: TestProject };
  doomedProject: TestProject;
  contactId: string;
  contactEmail: string;
  doomedContactId: string;
  bulkContactId: string;
  starterEmail: string;
  from: string;
  field: string;
  doomedField: string;
  eventName: string;
  doomedEvent: string;
  importJobId: string;
  bulkJobId: string;
  domainId: string;
  doomedDomainId: string;
  templateId: string;
  doomedTemplateId: string;
  staticSegmentId: string;
  dynamicSegmentId: string;
  doomedSegmentId: string;
  computeJobId: string;
  campaignId: string;
  toSendCampaignId: string;
  toCancelCampaignId: string;
  doomedCampaignId: string;
  suppressedEmail: string;
  doomedSuppression: string;
  inboundId: string;
  uploadKey: string;
  workflowId: string;
  executionId: string;
  editWorkflowId: string;
  freeStepIds: [string, string];
  editStepId: string;
  doomedStepId: string;
  doomedTransitionId: string;
  doomedWorkflowId: string;
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const BOUNDARY = 'authz-matrix-boundary';

function multipart(filename: string, type: string, content: Buffer | string): { rawBody: Buffer; headers: Record<string, string> } {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
  return {
    rawBody: Buffer.concat([Buffer.from(head), Buffer.from(content), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  };
}

let unique = 0;
const fresh = (what: string) => `${what}.${++unique}.${Date.now()}@example.com`;

let t: EmailTestApp;
let dns: FakeDnsServer;

async function setup() {
  dns = await startFakeDnsServer();
  t = await startEmailApi({ EMAIL_RATE_LIMIT_PER_MINUTE: '100000', SEGMENT_COMPUTE_INLINE_MAX: '0', DNS_SERVERS: dns.address });
  const server = t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const db = t.app.get(Database);

  const { account: owner, project } = await newProject(t, `Authz owner project ${Date.now()}`);
  const other = await newProject(t, 'Authz other project');
  const [member, admin2, doomedMember, invitee] = [await newAccount(t, 'member'), await newAccount(t, 'admin'), await newAccount(t, 'doomed'), await newAccount(t, 'invitee')];
  const ownerSession = { Cookie: owner.cookie };
  for (const [who, role] of [[member, 'MEMBER'], [admin2, 'ADMIN'], [doomedMember, 'MEMBER']] as const) {
    await t.http.post(`/projects/${project.id}/members`).set(ownerSession).send({ email: who.email, role }).expect(201);
  }
  const doomed = await t.http.post('/users/@me/projects').set(ownerSession).send({ name: 'Authz doomed project' }).expect(201);
  const doomedProject: TestProject = { id: doomed.body.id, name: doomed.body.name, publicKey: doomed.body.publicKey, secretKey: doomed.body.secretKey };
  await t.http.post(`/projects/${doomedProject.id}/members`).set(ownerSession).send({ email: member.email, role: 'MEMBER' }).expect(201);
  await t.http.post(`/projects/${doomedProject.id}/members`).set(ownerSession).send({ email: admin2.email, role: 'ADMIN' }).expect(201);

  const sk = bearer(project.secretKey);
  const post = async (path: string, body: unknown, status = 201) => {
    const res = await t.http.post(path).set(sk).send(body as object);
    if (res.status !== status) throw new Error(`setup: POST ${path} answered ${res.status} ${res.text}`);
    return res.body;
  };

  const contactEmail = fresh('owner-contact');
  const field = `authzfield${Date.now()}`;
  const doomedField = `authzdoomed${Date.now()}`;
  const contact = await post('/contacts', { email: contactEmail, data: { [field]: 'owner-value', [doomedField]: 'x' } });
  const doomedContact = await post('/contacts', { email: fresh('doomed-contact') });
  const bulkContact = await post('/contacts', { email: fresh('bulk-contact') });
  const starterEmail = fresh('starter');
  await post('/contacts', { email: starterEmail });
  const eventName = `authz_event_${Date.now()}`;
  const doomedEvent = `authz_doomed_${Date.now()}`;
  await post('/v1/track', { email: contactEmail, event: eventName }, 200);
  await post('/v1/track', { email: contactEmail, event: doomedEvent }, 200);
  const imported = await t.http.post('/contacts/import').set(sk).attach('file', Buffer.from(`email\n${fresh('imported')}\n`), 'contacts.csv').expect(202);
  const bulk = await post('/contacts/bulk-subscribe', { contactIds: [contact.id] }, 202);

  const domainName = `authz${Date.now()}.acme.test`;
  const domain = await verifiedDomain(t, dns, project, domainName);
  const doomedDomain = await post('/domains', { domain: `doomed${Date.now()}.acme.test` });
  const from = `news@${domainName}`;
  const template = await post('/templates', { name: 'Authz owner template', subject: 'Hello', body: '<p>Hi {{email}}</p>', from });
  const doomedTemplate = await post('/templates', { name: 'Authz doomed template', subject: 's', body: 'b', from });
  const staticSegment = await post('/segments', { name: 'Authz static segment', type: 'STATIC' });
  const dynamicSegment = await post('/segments', { name: 'Authz dynamic segment', type: 'DYNAMIC', trackMembership: true, condition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'owner-contact' }] }] } });
  const doomedSegment = await post('/segments', { name: 'Authz doomed segment', type: 'STATIC' });
  const compute = await post(`/segments/${dynamicSegment.id}/compute`, {}, 202);

  const campaignBody = (name: string) => ({ name, subject: 'Spring', body: '<p>Hi {{email}}</p><a href="{{unsubscribeUrl}}">unsubscribe</a>', from, audienceType: 'ALL' });
  const campaign = await post('/campaigns', campaignBody('Authz owner campaign'));
  const toSend = await post('/campaigns', campaignBody('Authz campaign to send'));
  const toCancel = await post('/campaigns', campaignBody('Authz campaign to cancel'));
  await post(`/campaigns/${toCancel.id}/send`, { scheduledFor: new Date(Date.now() + 86_400_000).toISOString() }, 200);
  const doomedCampaign = await post('/campaigns', campaignBody('Authz doomed campaign'));

  const suppressedEmail = fresh('suppressed');
  const doomedSuppression = fresh('doomed-suppressed');
  await post('/suppressions', { email: suppressedEmail, reason: 'manual' });
  await post('/suppressions', { email: doomedSuppression, reason: 'manual' });

  const inboundId = `inb_${String(Date.now()).padStart(20, '0').slice(-20)}`;
  await db.affected(
    `INSERT INTO ${db.table('inbound_messages')} (id, project_id, message_key, mail_from, rcpt_to, from_email, subject, headers, auth, size, raw_path) VALUES ($1, $2, 'authz-key', $3, ARRAY['in@${domainName}'], $3, 'Authz inbound subject', '{}', '{}', 10, 'none')`,
    [inboundId, project.id, contactEmail],
  );
  const upload = await t.http.post('/uploads/image').set(sk).attach('file', PNG, 'pixel.png').expect(201);

  // a MANUAL workflow waiting in a DELAY (an active execution), one to edit, one to delete
  const workflow = await post('/workflows', { name: 'Authz owner workflow', allowReentry: true });
  const full = (await t.http.get(`/workflows/${workflow.id}`).set(sk).expect(200)).body;
  const trigger = full.steps.find((s: { type: string }) => s.type === 'TRIGGER').id;
  const hold = await post(`/workflows/${workflow.id}/steps`, { type: 'DELAY', name: 'hold', config: { amount: 3, unit: 'days' } });
  await post(`/workflows/${workflow.id}/transitions`, { fromStepId: trigger, toStepId: hold.id });
  await t.http.patch(`/workflows/${workflow.id}`).set(sk).send({ triggerType: 'MANUAL', enabled: true }).expect(200);
  const execution = await post(`/workflows/${workflow.id}/executions`, { contactId: contact.id });
  const edit = await post('/workflows', { name: 'Authz workflow to edit' });
  const editFull = (await t.http.get(`/workflows/${edit.id}`).set(sk).expect(200)).body;
  const editTrigger = editFull.steps.find((s: { type: string }) => s.type === 'TRIGGER').id;
  const step = (name: string) => post(`/workflows/${edit.id}/steps`, name === 'free1' ? { type: 'DELAY', name, config: { amount: 1, unit: 'days' } } : { type: 'EXIT', name, config: {} });
  const [free1, free2, editStep, doomedStep, linked] = [await step('free1'), await step('free2'), await step('edit'), await step('doomed'), await step('linked')];
  const doomedTransition = await post(`/workflows/${edit.id}/transitions`, { fromStepId: editTrigger, toStepId: linked.id });
  const doomedWorkflow = await post('/workflows', { name: 'Authz doomed workflow' });

  const document = await fetchDocument(baseUrl);
  const ctx: Ctx = {
    project,
    owner,
    member,
    admin2,
    doomedMember,
    invitee,
    other,
    doomedProject,
    contactId: contact.id,
    contactEmail,
    doomedContactId: doomedContact.id,
    bulkContactId: bulkContact.id,
    starterEmail,
    from,
    field,
    doomedField,
    eventName,
    doomedEvent,
    importJobId: imported.body.jobId,
    bulkJobId: bulk.jobId,
    domainId: domain.id,
    doomedDomainId: doomedDomain.id,
    templateId: template.id,
    doomedTemplateId: doomedTemplate.id,
    staticSegmentId: staticSegment.id,
    dynamicSegmentId: dynamicSegment.id,
    doomedSegmentId: doomedSegment.id,
    computeJobId: compute.jobId,
    campaignId: campaign.id,
    toSendCampaignId: toSend.id,
    toCancelCampaignId: toCancel.id,
    doomedCampaignId: doomedCampaign.id,
    suppressedEmail,
    doomedSuppression,
    inboundId,
    uploadKey: new URL(upload.body.url).pathname.split('/').pop()!,
    workflowId: workflow.id,
    executionId: execution.id,
    editWorkflowId: edit.id,
    freeStepIds: [free1.id, free2.id],
    editStepId: editStep.id,
    doomedStepId: doomedStep.id,
    doomedTransitionId: doomedTransition.id,
    doomedWorkflowId: doomedWorkflow.id,
  };
  return {
    baseUrl,
    operations: operationsOf(document),
    document,
    callers: {
      wrong: { Authorization: `Bearer sk_${'x'.repeat(43)}`, Cookie: 'email_session=forged.session.token' },
      otherTenant: bearer(other.project.secretKey),
      lesserRole: { Cookie: member.cookie, 'X-Project-Id': project.id },
    },
    owner: { Cookie: owner.cookie, 'X-Project-Id': project.id },
    secrets: [project.name, project.publicKey, project.secretKey, owner.email, contactEmail, contact.id, field, eventName, domainName, template.id, 'Authz owner template', staticSegment.id, 'Authz static segment', campaign.id, 'Authz owner campaign', suppressedEmail, inboundId, 'Authz inbound subject', workflow.id, 'Authz owner workflow', execution.id],
    ctx,
    close: async () => {
      await t.close();
      await dns.close();
    },
  };
}

/** The documented answers of a project route: 401 without or with a wrong key, another project's key sees nothing of this one. */
function projectRow(request: MatrixRow<Ctx>['request'], otherTenant: number, lesserRole: number, extra: Partial<MatrixRow<Ctx>> = {}): MatrixRow<Ctx> {
  const member = lesserRole < 300;
  return {
    request,
    expect: { none: 401, wrong: 401, otherTenant, lesserRole },
    ...(member ? { seesOwnerData: ['lesserRole'] } : { owner: 200 }),
    ...extra,
  };
}
/** A route of the key's project (X-Project-Id for a session): another project's key reads its own project, the owner's records are 404 to it. */
const read = (path: (c: Ctx) => string, otherTenant = 200, extra: Partial<MatrixRow<Ctx>> = {}) => projectRow((c) => ({ path: path(c) }), otherTenant, 200, extra);
const write = (path: (c: Ctx) => string, body: (c: Ctx) => unknown, otherTenant: number, lesserRole: number, extra: Partial<MatrixRow<Ctx>> = {}) =>
  projectRow((c) => ({ path: path(c), body: body(c) }), otherTenant, lesserRole, extra);
/** A session-only route of the user (`/users/@me`): a key is no user; another user reads their own. */
const userRow = (request: MatrixRow<Ctx>['request'], otherTenant: number, lesserRole: number): MatrixRow<Ctx> => ({
  request,
  expect: { none: 401, wrong: 401, otherTenant, lesserRole },
  callers: (c) => ({ otherTenant: { Cookie: c.other.account.cookie }, lesserRole: { Cookie: c.member.cookie } }),
  note: 'a session route: another tenant is the other project owner\'s session, the lesser role the member\'s (their own user and projects)',
});
const publicRow = (request: MatrixRow<Ctx>['request'], status: number, note: string): MatrixRow<Ctx> => ({
  request,
  expect: { none: status, wrong: status, otherTenant: status },
  public: true,
  note,
});
const MANAGERS = 403;

const rows: Record<string, MatrixRow<Ctx>> = {
  'GET /config': publicRow(() => ({ path: '/config' }), 200, 'no auth (spec): feature flags only'),
  'POST /auth/signup': publicRow(() => ({ path: '/auth/signup', body: { email: fresh('signup'), password: 'correct horse battery' } }), 201, 'creates an account; no project data'),
  'POST /auth/login': publicRow((c) => ({ path: '/auth/login', body: { email: c.owner.email, password: 'wrong password here' } }), 401, 'a wrong password is 401 whoever asks'),
  'GET /auth/logout': publicRow(() => ({ path: '/auth/logout' }), 200, 'clears the cookie'),
  'GET /auth/oauth-config': publicRow(() => ({ path: '/auth/oauth-config' }), 200, 'the configured providers (none here)'),
  'GET /auth/oauth/{provider}': publicRow(() => ({ path: '/auth/oauth/github' }), 404, 'no provider configured: 404 OAUTH_PROVIDER_NOT_FOUND'),
  'GET /auth/oauth/{provider}/callback': publicRow(() => ({ path: '/auth/oauth/github/callback?code=x&state=y' }), 404, 'no provider configured'),
  'POST /auth/verify-email': publicRow(() => ({ path: '/auth/verify-email', body: { token: 'forged-token' } }), 400, 'a forged token: 400 INVALID_TOKEN'),
  'POST /auth/request-verification': publicRow((c) => ({ path: '/auth/request-verification', body: { email: c.owner.email } }), 202, 'always 202 (no enumeration)'),
  'POST /auth/request-password-reset': publicRow((c) => ({ path: '/auth/request-password-reset', body: { email: c.owner.email } }), 202, 'always 202 (no enumeration)'),
  'POST /auth/reset-password': publicRow(() => ({ path: '/auth/reset-password', body: { token: 'forged-token', password: 'another password 1' } }), 400, 'a forged token: 400 INVALID_TOKEN'),
  'GET /confirm/{token}': publicRow((c) => ({ path: `/confirm/${c.contactId}.9999999999.forged` }), 404, 'a signed link: a forged signature is 404 INVALID_CONFIRMATION_LINK'),
  'POST /confirm/{token}': publicRow((c) => ({ path: `/confirm/${c.contactId}.9999999999.forged` }), 404, 'a signed link: a forged signature is 404'),
  'GET /unsubscribe/{token}': publicRow((c) => ({ path: `/unsubscribe/${c.contactId}.forged` }), 404, 'a signed link: a forged signature is 404'),
  'POST /unsubscribe/{token}': publicRow((c) => ({ path: `/unsubscribe/${c.contactId}.forged` }), 404, 'a signed link: a forged signature is 404'),
  'GET /t/o/{token}': publicRow(() => ({ path: '/t/o/forged-token' }), 200, 'the pixel answers 200 whatever the token (records nothing for a forged one)'),
  'GET /t/c/{token}': publicRow(() => ({ path: '/t/c/forged-token' }), 404, 'a forged tracked link: 404 INVALID_TRACKING_LINK'),
  'POST /webhooks/ses': publicRow(
    () => ({ path: '/webhooks/ses', rawBody: JSON.stringify({ Type: 'Notification', MessageId: 'm', TopicArn: 'arn:aws:sns:us-east-1:1:t', Message: '{}', Timestamp: new Date().toISOString() }), headers: { 'content-type': 'text/plain' } }),
    403,
    'signature-checked receiver: no allowed topic configured, 403 SNS_TOPIC_NOT_ALLOWED',
  ),
  'POST /webhooks/incoming/stripe': publicRow(() => ({ path: '/webhooks/incoming/stripe', body: {} }), 503, 'signature-checked receiver: billing not configured, 503 BILLING_DISABLED'),
  'GET /uploads/images/{project}/{key}': publicRow((c) => ({ path: `/uploads/images/${c.project.id}/${c.uploadKey}` }), 200, 'no auth by design (the URLs go into emails): serves the image bytes only'),

  'GET /users/@me': userRow(() => ({ path: '/users/@me' }), 200, 200),
  'GET /users/@me/projects': { ...userRow(() => ({ path: '/users/@me/projects' }), 200, 200), seesOwnerData: ['lesserRole'] },
  'POST /users/@me/projects': userRow(() => ({ path: '/users/@me/projects', body: { name: 'Another project' } }), 201, 201),
  'PATCH /users/@me/projects/{id}': write((c) => `/users/@me/projects/${c.project.id}`, (c) => ({ name: c.project.name }), 404, MANAGERS),
  'POST /users/@me/projects/{id}/regenerate-keys': write((c) => `/users/@me/projects/${c.project.id}/regenerate-keys`, () => undefined, 404, MANAGERS),
  'GET /users/@me/projects/{id}/security': read((c) => `/users/@me/projects/${c.project.id}/security`, 404),
  'POST /users/@me/projects/{id}/reset': {
    ...write((c) => `/users/@me/projects/${c.doomedProject.id}/reset`, (c) => ({ confirm: c.doomedProject.name }), 404, MANAGERS),
    callers: (c) => ({ lesserRole: { Cookie: c.admin2.cookie } }),
    note: 'on a project of its own (the owner wipes it); OWNER only: the lesser role is an ADMIN',
  },
  'DELETE /users/@me/projects/{id}': {
    ...write((c) => `/users/@me/projects/${c.doomedProject.id}`, () => undefined, 404, MANAGERS),
    owner: 204,
    callers: (c) => ({ lesserRole: { Cookie: c.admin2.cookie } }),
    note: 'on a project of its own (the owner deletes it); OWNER only: the lesser role is an ADMIN',
  },
  'GET /users/@me/projects/{id}/billing-limits': read((c) => `/users/@me/projects/${c.project.id}/billing-limits`, 404),
  'PUT /users/@me/projects/{id}/billing-limits': write((c) => `/users/@me/projects/${c.project.id}/billing-limits`, () => ({ workflows: 1000, campaigns: 1000, transactional: 1000, inbound: 1000 }), 404, MANAGERS),
  'GET /users/@me/projects/{id}/billing-consumption': read((c) => `/users/@me/projects/${c.project.id}/billing-consumption`, 404),
  'POST /users/@me/projects/{id}/checkout': { ...write((c) => `/users/@me/projects/${c.project.id}/checkout`, () => ({}), 404, MANAGERS), owner: 503, note: 'billing not configured: the owner gets 503 BILLING_DISABLED' },
  'POST /users/@me/projects/{id}/billing-portal': { ...write((c) => `/users/@me/projects/${c.project.id}/billing-portal`, () => ({}), 404, MANAGERS), owner: 503, note: 'billing not configured: the owner gets 503' },
  'GET /users/@me/projects/{id}/billing-invoices': { ...read((c) => `/users/@me/projects/${c.project.id}/billing-invoices`, 404), expect: { none: 401, wrong: 401, otherTenant: 404, lesserRole: 503 }, note: 'any member reads invoices (documented without 403); billing not configured: 503 BILLING_DISABLED past access' },

  'GET /projects/{id}/setup-state': read((c) => `/projects/${c.project.id}/setup-state`, 404),
  'GET /projects/{id}/security': read((c) => `/projects/${c.project.id}/security`, 404),
  'GET /projects/{id}/members': read((c) => `/projects/${c.project.id}/members`, 404),
  'POST /projects/{id}/members': { ...write((c) => `/projects/${c.project.id}/members`, (c) => ({ email: c.invitee.email, role: 'MEMBER' }), 404, MANAGERS), owner: 201 },
  'PATCH /projects/{id}/members/{userId}': write((c) => `/projects/${c.project.id}/members/${c.admin2.userId}`, () => ({ role: 'ADMIN' }), 404, MANAGERS),
  'DELETE /projects/{id}/members/{userId}': {
    ...write((c) => `/projects/${c.project.id}/members/${c.doomedMember.userId}`, () => undefined, 404, MANAGERS),
    owner: 204,
    note: 'a MEMBER removes only themself (403 for another member); the owner removes the member',
  },
  'GET /projects/{id}/sending': read((c) => `/projects/${c.project.id}/sending`, 404),
  'PUT /projects/{id}/sending': write((c) => `/projects/${c.project.id}/sending`, () => ({ sendRate: 14 }), 404, MANAGERS),
  'GET /domains/project/{projectId}': read((c) => `/domains/project/${c.project.id}`, 404),
  'POST /domains': write(() => '/domains', () => ({ domain: `member${++unique}${Date.now()}.acme.test` }), 201, 201, { note: 'another project adds a domain to its own project' }),
  'GET /domains/{id}/verify': read((c) => `/domains/${c.domainId}/verify`, 404),
  'DELETE /domains/{id}': write((c) => `/domains/${c.doomedDomainId}`, () => undefined, 404, 204),

  'POST /v1/track': write(() => '/v1/track', () => ({ email: 'visitor@example.com', event: 'visited' }), 200, 401, {
    owner: undefined,
    seesOwnerData: undefined,
    note: 'the key route: a session (the member) is no key, 401 MISSING_AUTH... as any dashboard user',
  }),
  'POST /v1/send': write(() => '/v1/send', () => ({ to: 'someone@example.com', subject: 'Hi', body: 'Hello' }), 200, 401, { owner: undefined, note: 'secret key only: a session is refused' }),
  'POST /v1/verify': write(() => '/v1/verify', () => ({ email: 'someone@example.com' }), 200, 401, { owner: undefined, note: 'secret key only: a session is refused' }),
  'POST /events/track': write(() => '/events/track', () => ({ email: 'visitor@example.com', event: 'visited' }), 200, 200),
  'GET /events': read(() => '/events'),
  'GET /events/stats': read(() => '/events/stats'),
  'GET /events/names': read(() => '/events/names'),
  'GET /events/contact/{contactId}': read((c) => `/events/contact/${c.contactId}`, 404),
  'GET /events/{eventName}/usage': read((c) => `/events/${c.eventName}/usage`, 404),
  'DELETE /events/{eventName}': write((c) => `/events/${c.doomedEvent}`, () => undefined, 404, 200),

  'GET /contacts': read(() => '/contacts'),
  'POST /contacts': write(() => '/contacts', () => ({ email: fresh('created') }), 201, 201),
  'POST /contacts/lookup': write(() => '/contacts/lookup', (c) => ({ emails: [c.contactEmail] }), 200, 200),
  'GET /contacts/fields': read(() => '/contacts/fields'),
  'GET /contacts/fields/{field}/values': read((c) => `/contacts/fields/${c.field}/values`),
  'GET /contacts/fields/{field}/usage': read((c) => `/contacts/fields/${c.field}/usage`),
  'DELETE /contacts/fields/{field}': write((c) => `/contacts/fields/${c.doomedField}`, () => undefined, 200, 200),
  'POST /contacts/import': projectRow(() => ({ path: '/contacts/import', ...multipart('contacts.csv', 'text/csv', `email\n${fresh('imported')}\n`) }), 202, 202),
  'GET /contacts/import/{jobId}': read((c) => `/contacts/import/${c.importJobId}`, 404),
  'POST /contacts/bulk-subscribe': write(() => '/contacts/bulk-subscribe', (c) => ({ contactIds: [c.contactId] }), 202, 202),
  'POST /contacts/bulk-unsubscribe': write(() => '/contacts/bulk-unsubscribe', (c) => ({ contactIds: [c.bulkContactId] }), 202, 202),
  'POST /contacts/bulk-delete': write(() => '/contacts/bulk-delete', (c) => ({ contactIds: [c.bulkContactId] }), 202, 202),
  'GET /contacts/bulk/{jobId}': read((c) => `/contacts/bulk/${c.bulkJobId}`, 404),
  'GET /contacts/{id}': read((c) => `/contacts/${c.contactId}`, 404),
  'PATCH /contacts/{id}': write((c) => `/contacts/${c.contactId}`, () => ({ data: { plan: 'pro' } }), 404, 200),
  'DELETE /contacts/{id}': write((c) => `/contacts/${c.doomedContactId}`, () => undefined, 404, 204),

  'GET /activity': read(() => '/activity'),
  'GET /activity/stats': read(() => '/activity/stats'),
  'GET /activity/recent-count': read(() => '/activity/recent-count'),
  'GET /activity/upcoming': read(() => '/activity/upcoming'),
  'GET /activity/types': read(() => '/activity/types'),
  'GET /analytics/timeseries': read(() => '/analytics/timeseries'),
  'GET /analytics/top-campaigns': read(() => '/analytics/top-campaigns'),
  'GET /analytics/campaign-stats': read(() => '/analytics/campaign-stats'),
  'GET /analytics/top-events': read(() => '/analytics/top-events'),
  'GET /inbound': read(() => '/inbound'),
  'GET /inbound/{id}': read((c) => `/inbound/${c.inboundId}`, 404),
  'GET /suppressions': read(() => '/suppressions'),
  'POST /suppressions': write(() => '/suppressions', () => ({ email: fresh('suppress'), reason: 'manual' }), 201, 201),
  'DELETE /suppressions/{email}': write((c) => `/suppressions/${encodeURIComponent(c.doomedSuppression)}`, () => undefined, 404, 204),
  'POST /uploads/image': projectRow(() => ({ path: '/uploads/image', ...multipart('pixel.png', 'image/png', PNG) }), 201, 201),
  'GET /uploads/images': read(() => '/uploads/images'),

  'GET /templates': read(() => '/templates'),
  'POST /templates': write(() => '/templates', (c) => ({ name: 'Member template', subject: 's', body: 'b', from: c.from }), 422, 201, {
    note: 'another project writes to its own project, where the owner\'s verified domain is not verified: 422 domain_not_verified',
  }),
  'GET /templates/{id}': read((c) => `/templates/${c.templateId}`, 404),
  'PATCH /templates/{id}': write((c) => `/templates/${c.templateId}`, () => ({ subject: 'Hello again' }), 404, 200),
  'DELETE /templates/{id}': write((c) => `/templates/${c.doomedTemplateId}`, () => undefined, 404, 204),
  'POST /templates/{id}/duplicate': write((c) => `/templates/${c.templateId}/duplicate`, () => undefined, 404, 201),
  'GET /templates/{id}/usage': read((c) => `/templates/${c.templateId}/usage`, 404),

  'GET /segments': read(() => '/segments'),
  'POST /segments': write(() => '/segments', () => ({ name: 'Member segment', type: 'STATIC' }), 201, 201),
  'GET /segments/{id}': read((c) => `/segments/${c.staticSegmentId}`, 404),
  'PATCH /segments/{id}': write((c) => `/segments/${c.staticSegmentId}`, () => ({ description: 'edited' }), 404, 200),
  'DELETE /segments/{id}': write((c) => `/segments/${c.doomedSegmentId}`, () => undefined, 404, 204),
  'GET /segments/{id}/contacts': read((c) => `/segments/${c.staticSegmentId}/contacts`, 404),
  'POST /segments/{id}/members': write((c) => `/segments/${c.staticSegmentId}/members`, (c) => ({ emails: [c.contactEmail] }), 404, 200),
  'DELETE /segments/{id}/members': write((c) => `/segments/${c.staticSegmentId}/members`, (c) => ({ emails: [c.contactEmail] }), 404, 200),
  'POST /segments/{id}/refresh': write((c) => `/segments/${c.dynamicSegmentId}/refresh`, () => undefined, 404, 200),
  'POST /segments/{id}/compute': write((c) => `/segments/${c.dynamicSegmentId}/compute`, () => undefined, 404, 202),
  'GET /segments/{id}/compute/{jobId}': read((c) => `/segments/${c.dynamicSegmentId}/compute/${c.computeJobId}`, 404),

  'GET /campaigns': read(() => '/campaigns'),
  'POST /campaigns': write(() => '/campaigns', (c) => ({ name: 'Member campaign', subject: 's', body: 'b', from: c.from, audienceType: 'ALL' }), 422, 201, {
    note: 'another project writes to its own project, where the owner\'s verified domain is not verified: 422 domain_not_verified',
  }),
  'GET /campaigns/{id}': read((c) => `/campaigns/${c.campaignId}`, 404),
  'PUT /campaigns/{id}': write((c) => `/campaigns/${c.campaignId}`, (c) => ({ name: 'Authz owner campaign', subject: 'Spring', body: '<p>Hi</p>', from: c.from, audienceType: 'ALL' }), 404, 200),
  'DELETE /campaigns/{id}': write((c) => `/campaigns/${c.doomedCampaignId}`, () => undefined, 404, 204),
  'POST /campaigns/{id}/duplicate': write((c) => `/campaigns/${c.campaignId}/duplicate`, () => undefined, 404, 201),
  'POST /campaigns/{id}/send': write((c) => `/campaigns/${c.toSendCampaignId}/send`, () => ({}), 404, 200),
  'POST /campaigns/{id}/cancel': write((c) => `/campaigns/${c.toCancelCampaignId}/cancel`, () => undefined, 404, 200),
  'POST /campaigns/{id}/test': write((c) => `/campaigns/${c.campaignId}/test`, () => ({ email: 'tester@example.com' }), 404, 200),
  'POST /campaigns/{id}/ab/winner': write((c) => `/campaigns/${c.campaignId}/ab/winner`, () => ({ variant: 'A' }), 404, 409, {
    seesOwnerData: ['lesserRole'],
    owner: undefined,
    note: 'the campaign is no A/B test: the member gets past access to 409 CAMPAIGN_NOT_AB_TEST',
  }),
  'GET /campaigns/{id}/stats': read((c) => `/campaigns/${c.campaignId}/stats`, 404),

  'GET /workflows': read(() => '/workflows'),
  'POST /workflows': write(() => '/workflows', () => ({ name: 'Member workflow' }), 201, 201),
  'GET /workflows/fields': read(() => '/workflows/fields'),
  'GET /workflows/{id}': read((c) => `/workflows/${c.workflowId}`, 404),
  'PATCH /workflows/{id}': write((c) => `/workflows/${c.editWorkflowId}`, () => ({ description: 'edited' }), 404, 200),
  'DELETE /workflows/{id}': write((c) => `/workflows/${c.doomedWorkflowId}`, () => undefined, 404, 204),
  'POST /workflows/{id}/steps': write((c) => `/workflows/${c.editWorkflowId}/steps`, () => ({ type: 'EXIT', name: 'member step', config: {} }), 404, 201),
  'PATCH /workflows/{id}/steps/{stepId}': write((c) => `/workflows/${c.editWorkflowId}/steps/${c.editStepId}`, () => ({ name: 'renamed' }), 404, 200),
  'DELETE /workflows/{id}/steps/{stepId}': write((c) => `/workflows/${c.editWorkflowId}/steps/${c.doomedStepId}`, () => undefined, 404, 204),
  'POST /workflows/{id}/transitions': write((c) => `/workflows/${c.editWorkflowId}/transitions`, (c) => ({ fromStepId: c.freeStepIds[0], toStepId: c.freeStepIds[1] }), 404, 201),
  'DELETE /workflows/{id}/transitions/{transitionId}': write((c) => `/workflows/${c.editWorkflowId}/transitions/${c.doomedTransitionId}`, () => undefined, 404, 204),
  'POST /workflows/{id}/executions': write((c) => `/workflows/${c.workflowId}/executions`, (c) => ({ email: c.starterEmail }), 404, 201),
  'GET /workflows/{id}/executions': read((c) => `/workflows/${c.workflowId}/executions`, 404),
  'GET /workflows/{id}/executions/{executionId}': read((c) => `/workflows/${c.workflowId}/executions/${c.executionId}`, 404),
  'DELETE /workflows/{id}/executions/{executionId}': write((c) => `/workflows/${c.workflowId}/executions/${c.executionId}`, () => undefined, 404, 200),
  'POST /workflows/{id}/executions/cancel-all': write((c) => `/workflows/${c.workflowId}/executions/cancel-all`, () => undefined, 404, 200),
};

describeAuthorizationMatrix('email-api', setup, rows);
