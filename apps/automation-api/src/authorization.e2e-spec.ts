// The authorization matrix of automation-api: every operation of its OpenAPI document sent with no
// key, a wrong key and another account's key, each answered as the README and Swagger document it,
// and no other account's answer showing this account's data. Keys carry no roles (a key is its
// account), so no row has a lesser role. Another account handing this account's ids in a body
// (a video, an automation) is refused as for an unknown id.
import type { AddressInfo } from 'node:net';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, operationsOf, type MatrixRow, type TestApp } from '@platform/testing';
import { KEY_A, startAutomationApp, type AutomationTestContext } from '../test/automation-app';
import type { AutomationConfig } from './config';
import { automationApiService } from './service';

interface Ctx {
  automationId: number;
  draftId: number;
  pausedId: number;
  doomedId: number;
  contactIgId: string;
  videoId: string;
  reelId: number;
  plannedId: number;
}

let app: AutomationTestContext;

const SECRET_NAME = 'Owner automation 5d1c';
const CONTACT_NOTE = 'owner-only contact note 2a9f';

async function setup() {
  app = await startAutomationApp({ IG_APP_ID: 'authz-app-id' });
  try {
    return await prepare();
  } catch (err) {
    await app.close();
    throw err;
  }
}

async function prepare() {
  const server = app.t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { Authorization: `Bearer ${app.keyA}` };
  const call = async (path: string, body: unknown, status = 201, headers: Record<string, string> = {}) => {
    const req = app.t.http.post(path).set(auth).set(headers);
    const res = await (Buffer.isBuffer(body) ? req.send(body) : req.send(body as object));
    if (res.status !== status) throw new Error(`setup: POST ${path} answered ${res.status} ${res.text}`);
    return res.body;
  };
  const automation = async (name: string) => (await call('/api/v1/automations', { name, trigger: 'comment', keywords: ['price'], match_mode: 'word', opening_text: 'Hi there' })).automation;
  const live = await automation(SECRET_NAME);
  await call(`/api/v1/automations/${live.id}/go_live`, undefined, 200);
  const draft = await automation('Owner draft');
  const paused = await automation('Owner paused');
  await call(`/api/v1/automations/${paused.id}/go_live`, undefined, 200);
  await call(`/api/v1/automations/${paused.id}/pause`, undefined, 200);
  const doomed = await automation('Owner doomed');
  const contactIgId = '17841400000099999';
  await call('/api/v1/automations/import', { source: 'manychat', contacts: [{ ig_id: contactIgId, username: 'owner_contact_x', notes: CONTACT_NOTE }] });
  const video = await call('/api/v1/videos', Buffer.alloc(4096, 1), 201, { 'content-type': 'video/mp4' });
  const publishAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const reel = await call('/api/v1/reels', { publish_at: publishAt, caption: 'Owner reel caption', source: { video_id: video.video_id } });
  const planned = await call('/api/v1/planned_posts', { publish_at: publishAt, caption: 'Owner planned caption', source: { video_id: video.video_id }, targets: [{ platform: 'instagram' }] });
  const document = await fetchDocument(baseUrl);
  const ctx: Ctx = {
    automationId: live.id,
    draftId: draft.id,
    pausedId: paused.id,
    doomedId: doomed.id,
    contactIgId,
    videoId: video.video_id,
    reelId: reel.id,
    plannedId: planned.id,
  };
  return {
    baseUrl,
    operations: operationsOf(document),
    document,
    callers: {
      wrong: { Authorization: 'Bearer not-a-key-of-any-account-0000000' },
      otherTenant: { Authorization: `Bearer ${app.keyB}` },
      lesserRole: {},
    },
    owner: auth,
    secrets: [SECRET_NAME, 'Owner draft', 'Owner paused', CONTACT_NOTE, 'owner_contact_x', contactIgId, video.video_id, 'Owner reel caption', 'Owner planned caption', app.keyA, app.fakeA.state.account.username],
    ctx,
    close: () => app.close(),
  };
}

const NO_ROLES = 'keys carry no roles: a key is its account';
/** A route of the key's account: 401 without or with a wrong key; another account's key reaches its own account only. */
function row(request: MatrixRow<Ctx>['request'], otherTenant: number, owner?: number, note?: string): MatrixRow<Ctx> {
  return { request, expect: { none: 401, wrong: 401, otherTenant }, ...(owner !== undefined ? { owner } : {}), note: note ? `${note}; ${NO_ROLES}` : NO_ROLES };
}
const get = (path: (c: Ctx) => string, otherTenant = 200, owner?: number, note?: string) => row((c) => ({ path: path(c) }), otherTenant, owner, note);
const post = (path: (c: Ctx) => string, body: (c: Ctx) => unknown, otherTenant: number, owner?: number, note?: string) => row((c) => ({ path: path(c), body: body(c) }), otherTenant, owner, note);
const publicRow = (request: MatrixRow<Ctx>['request'], status: number, note: string): MatrixRow<Ctx> => ({ request, expect: { none: status, wrong: status, otherTenant: status }, public: true, note });
const sandboxRow = (request: MatrixRow<Ctx>['request'], status: number, note: string): MatrixRow<Ctx> => ({ request, expect: { none: status, wrong: status }, public: true, note });

const v1 = '/api/v1';
const later = () => new Date(Date.now() + 7 * 86_400_000).toISOString();
const rows: Record<string, MatrixRow<Ctx>> = {
  'GET /api/v1/events': get(() => `${v1}/events`),
  'GET /api/v1/automations': get(() => `${v1}/automations`),
  'POST /api/v1/automations': post(() => `${v1}/automations`, () => ({ name: 'Another automation', trigger: 'dm', keywords: ['hi'] }), 201),
  'GET /api/v1/automations/{id}': get((c) => `${v1}/automations/${c.automationId}`, 404, 200),
  'PATCH /api/v1/automations/{id}': post((c) => `${v1}/automations/${c.draftId}`, () => ({ opening_text: 'Hello' }), 404, 200),
  'DELETE /api/v1/automations/{id}': post((c) => `${v1}/automations/${c.doomedId}`, () => undefined, 404, 204),
  'POST /api/v1/automations/{id}/go_live': post((c) => `${v1}/automations/${c.draftId}/go_live`, () => undefined, 404, 200),
  'POST /api/v1/automations/{id}/pause': post((c) => `${v1}/automations/${c.automationId}/pause`, () => undefined, 404, 200),
  'POST /api/v1/automations/{id}/resume': post((c) => `${v1}/automations/${c.pausedId}/resume`, () => undefined, 404, 200),
  'POST /api/v1/automations/{id}/finish_migration': post((c) => `${v1}/automations/${c.automationId}/finish_migration`, () => undefined, 404, 409, 'not in transition mode: the owner gets 409 past access'),
  'POST /api/v1/automations/{id}/attach': post((c) => `${v1}/automations/${c.automationId}/attach`, () => ({}), 404, 409, 'no reel suggestion: the owner gets 409 past access'),
  'GET /api/v1/automations/{id}/funnel': get((c) => `${v1}/automations/${c.automationId}/funnel`, 404, 200),
  'GET /api/v1/funnel': get(() => `${v1}/funnel`),
  'GET /api/v1/contacts': get(() => `${v1}/contacts`),
  'GET /api/v1/contacts/{ig_id}': get((c) => `${v1}/contacts/${c.contactIgId}`, 404, 200),
  'PATCH /api/v1/contacts/{ig_id}': post((c) => `${v1}/contacts/${c.contactIgId}`, () => ({ tags: ['vip'] }), 404, 200),
  'GET /api/v1/posts': get(() => `${v1}/posts`, 200, 200, 'each key reads its own connected account\'s posts'),
  'GET /api/v1/posts/{id}/comments': get(() => `${v1}/posts/owner-media-unknown/comments`, 404, 404, 'a post unknown to the account'),
  'GET /api/v1/status': get(() => `${v1}/status`),
  'POST /api/v1/preview': post(() => `${v1}/preview`, (c) => ({ text: 'price please', automation_id: c.automationId, include_drafts: true }), 404, 200, 'another account naming this account\'s automation: as an unknown id'),
  'POST /api/v1/automations/import': post(() => `${v1}/automations/import`, () => ({ source: 'manychat', contacts: [{ ig_id: '17841400000011111' }] }), 201),
  'POST /api/v1/videos': row(() => ({ path: `${v1}/videos`, rawBody: Buffer.alloc(2048, 2), headers: { 'content-type': 'video/mp4' } }), 201),
  'GET /api/v1/reels': get(() => `${v1}/reels`),
  'POST /api/v1/reels': post(() => `${v1}/reels`, (c) => ({ publish_at: later(), caption: 'Another reel', source: { video_id: c.videoId } }), 400, 201, 'another account naming this account\'s video: 400 as an unknown video'),
  'GET /api/v1/reels/{id}': get((c) => `${v1}/reels/${c.reelId}`, 404, 200),
  'POST /api/v1/reels/{id}/cancel': post((c) => `${v1}/reels/${c.reelId}/cancel`, () => undefined, 404, 200),
  'GET /api/v1/planned_posts': get(() => `${v1}/planned_posts`),
  'POST /api/v1/planned_posts': post(() => `${v1}/planned_posts`, (c) => ({ publish_at: later(), caption: 'Another post', source: { video_id: c.videoId }, targets: [{ platform: 'instagram' }] }), 400, 201, 'another account naming this account\'s video: 400 as an unknown video'),
  'GET /api/v1/planned_posts/{id}': get((c) => `${v1}/planned_posts/${c.plannedId}`, 404, 200),
  'POST /api/v1/planned_posts/{id}/cancel': post((c) => `${v1}/planned_posts/${c.plannedId}/cancel`, () => undefined, 404, 200),

  'GET /webhooks/instagram': publicRow(() => ({ path: '/webhooks/instagram?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=42' }), 403, 'the verify token is the credential: 403'),
  'POST /webhooks/instagram': publicRow(() => ({ path: '/webhooks/instagram', rawBody: JSON.stringify({ object: 'instagram', entry: [] }), headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00' } }), 401, 'the signature is the credential: 401, nothing stored'),
  'GET /r/{code}': publicRow(() => ({ path: '/r/forgedcode' }), 404, 'a tracked link: an unknown code is 404'),
  'GET /connect/instagram': publicRow(() => ({ path: '/connect/instagram?link=forgedforgedforgedforged0' }), 404, 'the connect link is the credential: a forged one is refused'),
  'POST /connect/instagram/start': publicRow(() => ({ path: '/connect/instagram/start', rawBody: 'link=forgedforgedforgedforged0', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 404, 'the connect link is the credential'),
  'GET /connect/instagram/callback': publicRow(() => ({ path: '/connect/instagram/callback?code=x&state=forged' }), 400, 'the state is the credential: 400 page'),
};

const sandboxRows: Record<string, MatrixRow<Ctx>> = {
  'POST /sandbox/comments': sandboxRow(() => ({ path: '/sandbox/comments', body: { text: 'hello' } }), 201, 'development sandbox (never registered with NODE_ENV=production)'),
  'POST /sandbox/messages': sandboxRow(() => ({ path: '/sandbox/messages', body: { text: 'hello' } }), 201, 'development sandbox'),
  'POST /sandbox/postbacks': sandboxRow(() => ({ path: '/sandbox/postbacks', body: { payload: 'x' } }), 201, 'development sandbox'),
  'POST /sandbox/users': sandboxRow(() => ({ path: '/sandbox/users', body: { user_id: '1', follows: true } }), 200, 'development sandbox'),
  'GET /sandbox/outbox': sandboxRow(() => ({ path: '/sandbox/outbox' }), 200, 'development sandbox: what the sandbox platform was sent'),
};

describeAuthorizationMatrix('automation-api', setup, rows);

/** With no platform credentials (development) the app serves its sandbox: public, never registered with NODE_ENV=production. */
describeAuthorizationMatrix(
  'automation-api sandbox (development only)',
  async () => {
    const sandbox: TestApp<AutomationConfig> = await createTestApp(automationApiService, { AUTOMATION_API_KEY: KEY_A, PUBLIC_BASE_URL: 'https://automation.example.com' });
    const server = sandbox.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const document = await fetchDocument(baseUrl);
    return {
      baseUrl,
      operations: operationsOf(document).filter((op) => op.split(' ')[1]!.startsWith('/sandbox/')),
      document,
      callers: { wrong: { Authorization: 'Bearer not-a-key-of-any-account-0000000' }, otherTenant: {}, lesserRole: {} },
      secrets: [KEY_A],
      ctx: {} as Ctx,
      close: () => sandbox.close(),
    };
  },
  sandboxRows,
);
