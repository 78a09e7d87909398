// The authorization matrix of conversation-api: every operation of its OpenAPI document sent with no
// token, a forged one, another account's administrator and an agent of the account who is no member
// of its channel, each answered as the README and Swagger document it; no other account ever sees
// this account's data, and the agent never sees what its role or its inboxes keep from it.
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { describeAuthorizationMatrix, fetchDocument, operationsOf, type MatrixRequest, type MatrixRow } from '@platform/testing';
import { ADMIN_EMAIL, ADMIN_PASSWORD, WA, deliver, login, otherAccount, startApp, textDelivery, userWithRole, whatsappChannel, type ConversationTestApp, type Session } from '../test/helpers';

type Auth = Record<string, string>;

interface Ctx {
  admin: Session;
  agent: Session & { id: string };
  other: Session;
  spare: { agent: Session; other: Session };
  agentRoleId: string;
  customRoleId: string;
  doomedRoleId: string;
  doomedUserId: string;
  teamId: string;
  doomedTeamId: string;
  channelId: string;
  conversationId: string;
  messageId: string;
  failedMessageId: string;
  contactId: string;
  attributeId: string;
  doomedAttributeId: string;
  labelId: string;
  doomedLabelId: string;
  cannedId: string;
  doomedCannedId: string;
  draftRecipe: { id: string; etag: string };
  publishRecipe: { id: string; etag: string };
  recipeId: string;
  doomedRecipeId: string;
}

const SECRET_TEXT = 'owner-only message text 7f3a';
const WHISPER_TEXT = 'owner-only private note 9c1d';
const CHANNEL_NAME = 'Owner support inbox 4b2e';
const CONTACT_NAME = 'Kim Ownercontact';

let t: ConversationTestApp;
let unique = 0;
const next = () => `${++unique}${Date.now()}`;

/** An access token of the right shape, signed with another secret. */
function forgedToken(claims: Record<string, unknown>): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 })}`;
  return `${body}.${createHmac('sha256', 'not-the-secret-not-the-secret-0000').update(body).digest('base64url')}`;
}


async function setup() {
  t = await startApp();
  const server = t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
  const agent = await userWithRole(t, admin, 'agent', `agent.${next()}@conversation.test`);
  const other = await otherAccount(t, `other.${next()}@conversation.test`);
  const as = admin.auth;
  const call = async (method: 'get' | 'post' | 'patch' | 'put', path: string, body?: object, status = method === 'post' ? 201 : 200, headers: Auth = {}) => {
    const res = await t.http[method](path).set(as).set(headers).send(body);
    if (res.status !== status) throw new Error(`setup: ${method.toUpperCase()} ${path} answered ${res.status} ${res.text}`);
    return res;
  };
  const roles = (await call('get', '/api/v1/roles')).body.data as Array<{ id: string; name: string }>;
  const agentRoleId = roles.find((r) => r.name === 'agent')!.id;
  const customRole = (await call('post', '/api/v1/roles', { name: `owner-custom-${next()}`, permissions: ['contacts:read'] })).body.data;
  const doomedRole = (await call('post', '/api/v1/roles', { name: `doomed-${next()}`, permissions: ['contacts:read'] })).body.data;
  const doomedUser = (await call('post', '/api/v1/users', { email: `doomed.${next()}@conversation.test`, name: 'Doomed user', password: 'user-password-1', role_id: agentRoleId })).body.data;
  const team = (await call('post', '/api/v1/teams', { name: `Owner team ${next()}` })).body.data;
  const doomedTeam = (await call('post', '/api/v1/teams', { name: `Doomed team ${next()}` })).body.data;

  const channel = await whatsappChannel(t, admin, { name: CHANNEL_NAME });
  await deliver(t, channel.id, textDelivery({ id: `wamid.AUTHZ${next()}`, from: '15550007777', text: SECRET_TEXT, name: CONTACT_NAME })).expect(200);
  const conversation = (await call('get', '/api/v1/conversations?limit=1')).body.data[0];
  const messages = (await call('get', `/api/v1/conversations/${conversation.id}/messages`)).body.data as Array<{ id: string }>;
  await call('post', `/api/v1/conversations/${conversation.id}/whisper`, { content: WHISPER_TEXT });
  const reply = (await call('post', `/api/v1/conversations/${conversation.id}/messages`, { content: 'owner reply' })).body.data;

  const attribute = (await call('post', '/api/v1/contacts/attributes', { key: `tier${next()}`, display_name: 'Tier', type: 'text' })).body.data;
  const doomedAttribute = (await call('post', '/api/v1/contacts/attributes', { key: `doomed${next()}`, display_name: 'Doomed', type: 'text' })).body.data;
  const label = (await call('post', '/api/v1/labels', { name: `owner-label-${next()}` })).body.data;
  const doomedLabel = (await call('post', '/api/v1/labels', { name: `doomed-label-${next()}` })).body.data;
  const canned = (await call('post', '/api/v1/canned-responses', { short_code: `owner${next()}`, content: 'Hello {{contact.name}}' })).body.data;
  const doomedCanned = (await call('post', '/api/v1/canned-responses', { short_code: `doomed${next()}`, content: 'Bye' })).body.data;

  const recipe = async (name: string) => {
    const created = (await call('post', '/api/v1/recipes', { name })).body.data;
    const draft = await call('get', `/api/v1/recipes/${created.id}/draft`);
    return { id: created.id as string, etag: draft.headers.etag as string, webhookSecret: created.webhook_secret as string };
  };
  const complete = { trigger: 'message_created', match: 'all', conditions: [], actions: [{ type: 'resolve' }] };
  const draftRecipe = await recipe('Recipe to draft');
  const publishRecipe = await recipe('Recipe to publish');
  const saved = await call('put', `/api/v1/recipes/${publishRecipe.id}/draft`, complete, 200, { 'If-Match': publishRecipe.etag });
  const published = await recipe('Owner recipe');
  const savedPublished = await call('put', `/api/v1/recipes/${published.id}/draft`, complete, 200, { 'If-Match': published.etag });
  await call('post', `/api/v1/recipes/${published.id}/publish`, undefined, 201, { 'If-Match': savedPublished.headers.etag as string });
  const doomedRecipe = await recipe('Doomed recipe');

  // sessions of their own for the logout row (it ends the caller's session)
  const agentSpare = await login(t, (await t.http.get('/api/v1/auth/me').set(agent.auth)).body.data.email, 'user-password-1');
  const otherSpare = await login(t, (await t.http.get('/api/v1/auth/me').set(other.auth)).body.data.email, 'other-password-1');

  // what the agent (no member of the channel, no recipes:write) never sees, whatever the route
  const hiddenFromAgent = [SECRET_TEXT, WHISPER_TEXT, CHANNEL_NAME, WA.accessToken, WA.appSecret, WA.verifyToken, published.webhookSecret, draftRecipe.webhookSecret];
  const ctx: Ctx = {
    admin,
    agent,
    other,
    spare: { agent: agentSpare, other: otherSpare },
    agentRoleId,
    customRoleId: customRole.id,
    doomedRoleId: doomedRole.id,
    doomedUserId: doomedUser.id,
    teamId: team.id,
    doomedTeamId: doomedTeam.id,
    channelId: channel.id,
    conversationId: conversation.id,
    messageId: messages[0].id,
    failedMessageId: reply.id,
    contactId: conversation.contact.id,
    attributeId: attribute.id,
    doomedAttributeId: doomedAttribute.id,
    labelId: label.id,
    doomedLabelId: doomedLabel.id,
    cannedId: canned.id,
    doomedCannedId: doomedCanned.id,
    draftRecipe,
    publishRecipe: { id: publishRecipe.id, etag: saved.headers.etag as string },
    recipeId: published.id,
    doomedRecipeId: doomedRecipe.id,
  };
  const document = await fetchDocument(baseUrl);
  const adminId = (await t.http.get('/api/v1/auth/me').set(as)).body.data.id as string;
  return {
    baseUrl,
    operations: operationsOf(document),
    callers: {
      wrong: { Authorization: `Bearer ${forgedToken({ sub: adminId, acc: 'x', sid: 'x' })}` },
      otherTenant: other.auth,
      lesserRole: agent.auth,
    },
    owner: admin.auth,
    secrets: [...hiddenFromAgent, conversation.id, CONTACT_NAME, '15550007777', customRole.name, team.name, label.name, canned.short_code, doomedUser.email, 'Owner recipe', agent.id],
    ctx,
    secretsFor: { lesserRole: hiddenFromAgent },
    document,
    close: () => t.close(),
  };
}

type Req = (c: Ctx) => MatrixRequest;
const NO_AGENT = 403;
/** A route of the account: no token or a forged one 401; another account's administrator acts in its own account (its ids of ours: 404). */
function row(request: Req, otherTenant: number, lesserRole: number, extra: Partial<MatrixRow<Ctx>> = {}): MatrixRow<Ctx> {
  return {
    request,
    expect: { none: 401, wrong: 401, otherTenant, lesserRole },
    ...(lesserRole < 300 ? { seesOwnerData: ['lesserRole'] as const } : {}),
    ...(lesserRole === NO_AGENT ? { owner: 200 } : {}),
    ...extra,
  } as MatrixRow<Ctx>;
}
const get = (path: (c: Ctx) => string, otherTenant: number, lesserRole: number, extra: Partial<MatrixRow<Ctx>> = {}) => row((c) => ({ path: path(c) }), otherTenant, lesserRole, extra);
const send = (path: (c: Ctx) => string, body: (c: Ctx) => unknown, otherTenant: number, lesserRole: number, extra: Partial<MatrixRow<Ctx>> = {}) =>
  row((c) => ({ path: path(c), body: body(c) }), otherTenant, lesserRole, extra);
/** A conversation route: the agent is no member of the conversation's channel, so for it the conversation does not exist. */
const conv = (path: (c: Ctx) => string, body?: (c: Ctx) => unknown, owner = 200) =>
  row((c) => ({ path: path(c), ...(body ? { body: body(c) } : {}) }), 404, 404, { owner, note: 'the agent is no member of the channel: 404 CONVERSATION_NOT_FOUND, as if it did not exist' });
const publicRow = (request: Req, status: number, note: string): MatrixRow<Ctx> => ({ request, expect: { none: status, wrong: status, otherTenant: status }, public: true, note });

const api = '/api/v1';
const rows: Record<string, MatrixRow<Ctx>> = {
  'POST /api/v1/auth/login': publicRow(() => ({ path: `${api}/auth/login`, body: { email: ADMIN_EMAIL, password: 'not-the-password' } }), 401, 'a wrong password is 401 whoever asks'),
  'POST /api/v1/auth/refresh': publicRow(() => ({ path: `${api}/auth/refresh`, body: { refresh_token: 'crt_forged' } }), 401, 'a forged refresh token is 401'),
  'POST /api/v1/auth/password-reset': publicRow(() => ({ path: `${api}/auth/password-reset`, body: { email: ADMIN_EMAIL } }), 202, 'always 202 (no enumeration)'),
  'POST /api/v1/auth/password-reset/confirm': publicRow(() => ({ path: `${api}/auth/password-reset/confirm`, body: { token: 'forged-token', password: 'another-password-1' } }), 400, 'a forged token is refused'),
  'POST /api/v1/auth/logout': {
    ...row(() => ({ path: `${api}/auth/logout` }), 200, 200),
    seesOwnerData: undefined,
    callers: (c) => ({ otherTenant: c.spare.other.auth, lesserRole: c.spare.agent.auth }),
    note: 'ends the caller\'s own session: sessions of their own',
  },
  'GET /api/v1/auth/me': get(() => `${api}/auth/me`, 200, 200, { note: 'the caller itself' }),
  'GET /api/v1/webhooks/whatsapp/{channelId}': publicRow((c) => ({ path: `${api}/webhooks/whatsapp/${c.channelId}?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=42` }), 403, 'the verify token is the credential: 403 VERIFICATION_FAILED'),
  'POST /api/v1/webhooks/whatsapp/{channelId}': publicRow(
    (c) => ({ path: `${api}/webhooks/whatsapp/${c.channelId}`, rawBody: textDelivery({ id: 'wamid.FORGED', from: '15550006666', text: 'forged' }), headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' } }),
    401,
    'the signature is the credential: 401 INVALID_SIGNATURE',
  ),

  'GET /api/v1/account': get(() => `${api}/account`, 200, 200, { note: 'every user reads the account settings; another account reads its own' }),
  'PATCH /api/v1/account': send(() => `${api}/account`, () => ({ time_zone: 'Europe/Berlin' }), 200, NO_AGENT, { note: 'admin only: another account\'s administrator changes its own account' }),
  'GET /api/v1/roles': get(() => `${api}/roles`, 200, 200),
  'POST /api/v1/roles': send(() => `${api}/roles`, () => ({ name: `role-${next()}`, permissions: ['contacts:read'] }), 201, NO_AGENT, { owner: 201 }),
  'GET /api/v1/roles/permissions': get(() => `${api}/roles/permissions`, 200, 200),
  'GET /api/v1/roles/{id}': get((c) => `${api}/roles/${c.customRoleId}`, 404, 200),
  'PATCH /api/v1/roles/{id}': send((c) => `${api}/roles/${c.customRoleId}`, () => ({ description: 'edited' }), 404, NO_AGENT),
  'DELETE /api/v1/roles/{id}': send((c) => `${api}/roles/${c.doomedRoleId}`, () => undefined, 404, NO_AGENT),
  'GET /api/v1/users': get(() => `${api}/users`, 200, 200),
  'POST /api/v1/users': send(() => `${api}/users`, (c) => ({ email: `new.${next()}@conversation.test`, name: 'New', password: 'user-password-1', role_id: c.agentRoleId }), 404, NO_AGENT, {
    owner: 201,
    note: 'another account\'s administrator cannot give a role of this account: 404 ROLE_NOT_FOUND',
  }),
  'GET /api/v1/users/{id}': get((c) => `${api}/users/${c.doomedUserId}`, 404, 200),
  'PATCH /api/v1/users/{id}': send((c) => `${api}/users/${c.doomedUserId}`, () => ({ name: 'Renamed' }), 404, NO_AGENT),
  'GET /api/v1/teams': get(() => `${api}/teams`, 200, 200),
  'POST /api/v1/teams': send(() => `${api}/teams`, () => ({ name: `team-${next()}` }), 201, NO_AGENT, { owner: 201 }),
  'GET /api/v1/teams/{id}': get((c) => `${api}/teams/${c.teamId}`, 404, 200),
  'PATCH /api/v1/teams/{id}': send((c) => `${api}/teams/${c.teamId}`, () => ({ description: 'edited' }), 404, NO_AGENT),
  'DELETE /api/v1/teams/{id}': send((c) => `${api}/teams/${c.doomedTeamId}`, () => undefined, 404, NO_AGENT),
  'PUT /api/v1/teams/{id}/members': send((c) => `${api}/teams/${c.teamId}/members`, (c) => ({ member_ids: [c.agent.id] }), 404, NO_AGENT),

  'GET /api/v1/channels': get(() => `${api}/channels`, 200, 200, { seesOwnerData: undefined, note: 'the agent is no member of the channel: an empty list' }),
  'GET /api/v1/channels/{id}': get((c) => `${api}/channels/${c.channelId}`, 404, 404, { owner: 200, note: 'the agent is no member of the channel: 404' }),
  'PATCH /api/v1/channels/{id}': send((c) => `${api}/channels/${c.channelId}`, () => ({ assignment_cap: 5 }), 404, NO_AGENT),
  'POST /api/v1/channels/whatsapp': send(
    () => `${api}/channels/whatsapp`,
    () => ({ name: 'Another number', phone_number_id: `9${next()}`.slice(0, 15), access_token: 'EAAG-other', app_secret: 'other-secret', verify_token: 'other-verify' }),
    201,
    NO_AGENT,
    { owner: 201 },
  ),
  'POST /api/v1/channels/email': send(
    () => `${api}/channels/email`,
    () => ({ name: 'Mail', email: `support.${next()}@example.com`, imap: { host: '127.0.0.1', port: 1, user: 'u', password: 'p' }, smtp: { host: '127.0.0.1', port: 1, user: 'u', password: 'p' } }),
    201,
    NO_AGENT,
    { owner: 201 },
  ),
  'POST /api/v1/channels/{id}/test': send((c) => `${api}/channels/${c.channelId}/test`, () => undefined, 404, NO_AGENT, { owner: 422, note: 'a WhatsApp channel: the owner gets 422 CHANNEL_TEST_UNSUPPORTED past access' }),

  'GET /api/v1/conversations': get(() => `${api}/conversations`, 200, 200, { seesOwnerData: undefined, note: 'the agent sees the conversations of its inboxes only: none here' }),
  'GET /api/v1/conversations/{id}': conv((c) => `${api}/conversations/${c.conversationId}`),
  'PATCH /api/v1/conversations/{id}': conv((c) => `${api}/conversations/${c.conversationId}`, () => ({ priority: 'high' })),
  'POST /api/v1/conversations/{id}/messages': conv((c) => `${api}/conversations/${c.conversationId}/messages`, () => ({ content: 'another reply' }), 201),
  'GET /api/v1/conversations/{id}/messages': conv((c) => `${api}/conversations/${c.conversationId}/messages`),
  'GET /api/v1/conversations/{id}/messages/{messageId}/attachments/{index}': conv((c) => `${api}/conversations/${c.conversationId}/messages/${c.messageId}/attachments/0`, undefined, 404),
  'POST /api/v1/conversations/{id}/messages/{messageId}/retry': conv((c) => `${api}/conversations/${c.conversationId}/messages/${c.failedMessageId}/retry`, undefined, 409),
  'POST /api/v1/conversations/{id}/whisper': conv((c) => `${api}/conversations/${c.conversationId}/whisper`, () => ({ content: 'another note' }), 201),
  'POST /api/v1/conversations/{id}/assign': conv((c) => `${api}/conversations/${c.conversationId}/assign`, () => ({ assignee_id: null })),
  'POST /api/v1/conversations/{id}/close': conv((c) => `${api}/conversations/${c.conversationId}/close`),
  'POST /api/v1/conversations/{id}/reopen': conv((c) => `${api}/conversations/${c.conversationId}/reopen`),
  'POST /api/v1/conversations/{id}/status': conv((c) => `${api}/conversations/${c.conversationId}/status`, () => ({ status: 'pending' })),
  'GET /api/v1/search/messages': get(() => `${api}/search/messages?q=${encodeURIComponent('owner-only')}`, 200, 200, { seesOwnerData: undefined, note: 'searches the conversations the caller sees: nothing of this channel for the agent' }),

  'GET /api/v1/contacts': get(() => `${api}/contacts`, 200, 200),
  'GET /api/v1/contacts/search': get(() => `${api}/contacts/search?q=Kim`, 200, 200),
  'GET /api/v1/contacts/attributes': get(() => `${api}/contacts/attributes`, 200, 200),
  'POST /api/v1/contacts/attributes': send(() => `${api}/contacts/attributes`, () => ({ key: `k${next()}`, display_name: 'K', type: 'text' }), 201, NO_AGENT, { owner: 201 }),
  'DELETE /api/v1/contacts/attributes/{id}': send((c) => `${api}/contacts/attributes/${c.doomedAttributeId}`, () => undefined, 404, NO_AGENT),
  'GET /api/v1/contacts/{id}': get((c) => `${api}/contacts/${c.contactId}`, 404, 200, { note: 'contacts are account-wide; their conversations follow the caller\'s inboxes' }),
  'PATCH /api/v1/contacts/{id}': send((c) => `${api}/contacts/${c.contactId}`, () => ({ email: 'kim@example.com' }), 404, 200),
  'PATCH /api/v1/contacts/{id}/attributes': send((c) => `${api}/contacts/${c.contactId}/attributes`, () => ({ custom_attributes: {} }), 404, 200),

  'GET /api/v1/analytics/summary': get(() => `${api}/analytics/summary`, 200, 200),
  'GET /api/v1/analytics/timeseries': get(() => `${api}/analytics/timeseries?metric=conversations_count`, 200, 200),
  'GET /api/v1/analytics/agents': get(() => `${api}/analytics/agents`, 200, 200),
  'GET /api/v1/analytics/teams': get(() => `${api}/analytics/teams`, 200, 200),

  'GET /api/v1/labels': get(() => `${api}/labels`, 200, 200),
  'POST /api/v1/labels': send(() => `${api}/labels`, () => ({ name: `label-${next()}` }), 201, NO_AGENT, { owner: 201 }),
  'GET /api/v1/labels/{id}': get((c) => `${api}/labels/${c.labelId}`, 404, 200),
  'PATCH /api/v1/labels/{id}': send((c) => `${api}/labels/${c.labelId}`, () => ({ description: 'edited' }), 404, NO_AGENT),
  'DELETE /api/v1/labels/{id}': send((c) => `${api}/labels/${c.doomedLabelId}`, () => undefined, 404, NO_AGENT),
  'GET /api/v1/canned-responses': get(() => `${api}/canned-responses`, 200, 200),
  'POST /api/v1/canned-responses': send(() => `${api}/canned-responses`, () => ({ short_code: `c${next()}`, content: 'Hi' }), 201, NO_AGENT, { owner: 201 }),
  'GET /api/v1/canned-responses/{id}': get((c) => `${api}/canned-responses/${c.cannedId}`, 404, 200),
  'PATCH /api/v1/canned-responses/{id}': send((c) => `${api}/canned-responses/${c.cannedId}`, () => ({ content: 'Hello again' }), 404, NO_AGENT),
  'DELETE /api/v1/canned-responses/{id}': send((c) => `${api}/canned-responses/${c.doomedCannedId}`, () => undefined, 404, NO_AGENT),
  'GET /api/v1/canned-responses/{id}/render': get((c) => `${api}/canned-responses/${c.cannedId}/render?conversation_id=${c.conversationId}`, 404, 404, {
    owner: 200,
    note: 'rendered for a conversation: the agent is no member of its channel',
  }),

  'GET /api/v1/recipes': get(() => `${api}/recipes`, 200, 200, { note: 'recipes:read; webhook_secret only with recipes:write (secretsFor)' }),
  'POST /api/v1/recipes': send(() => `${api}/recipes`, () => ({ name: 'Another recipe' }), 201, NO_AGENT, { owner: 201 }),
  'GET /api/v1/recipes/{id}': get((c) => `${api}/recipes/${c.recipeId}`, 404, 200),
  'PATCH /api/v1/recipes/{id}': send((c) => `${api}/recipes/${c.recipeId}`, () => ({ name: 'Owner recipe' }), 404, NO_AGENT),
  'DELETE /api/v1/recipes/{id}': send((c) => `${api}/recipes/${c.doomedRecipeId}`, () => undefined, 404, NO_AGENT),
  'GET /api/v1/recipes/{id}/draft': get((c) => `${api}/recipes/${c.recipeId}/draft`, 404, 200),
  'PUT /api/v1/recipes/{id}/draft': row(
    (c) => ({ path: `${api}/recipes/${c.draftRecipe.id}/draft`, body: { trigger: 'message_created', conditions: [], actions: [] }, headers: { 'If-Match': c.draftRecipe.etag } }),
    404,
    NO_AGENT,
  ),
  'POST /api/v1/recipes/{id}/publish': row((c) => ({ path: `${api}/recipes/${c.publishRecipe.id}/publish`, headers: { 'If-Match': c.publishRecipe.etag } }), 404, NO_AGENT, { owner: 201 }),
  'GET /api/v1/recipes/{id}/versions': get((c) => `${api}/recipes/${c.recipeId}/versions`, 404, 200),
  'GET /api/v1/recipes/{id}/versions/{version}': get((c) => `${api}/recipes/${c.recipeId}/versions/1`, 404, 200),
  'POST /api/v1/recipes/{id}/rollback': send((c) => `${api}/recipes/${c.recipeId}/rollback`, () => ({ version: 1 }), 404, NO_AGENT, { owner: 201 }),
  'POST /api/v1/recipes/{id}/disable': send((c) => `${api}/recipes/${c.recipeId}/disable`, () => undefined, 404, NO_AGENT),
  'POST /api/v1/recipes/{id}/enable': send((c) => `${api}/recipes/${c.recipeId}/enable`, () => undefined, 404, NO_AGENT),
  'GET /api/v1/recipes/{id}/runs': get((c) => `${api}/recipes/${c.recipeId}/runs`, 404, 200),
};

describeAuthorizationMatrix('conversation-api', setup, rows);
