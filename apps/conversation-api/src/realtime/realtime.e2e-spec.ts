// Real-time events to agents over Socket.IO, across two replicas sharing PostgreSQL and Redis: an
// agent connected to replica B sees what happens on replica A.
import { startService, type RunningService } from '@platform/platform';
import { buildForTest, createTestDatabase, createTestRedisPrefix, spawnBuiltApp, type SpawnedApp, type TestDatabase, type TestRedisPrefix } from '@platform/testing';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import request from 'supertest';
import { conversationApiService } from '../service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, sign, textDelivery, WA } from '../../test/helpers';
import { startFakeWhatsApp, type FakeWhatsApp } from '../../test/fake-whatsapp';

function connect(url: string, token?: string, socketPath?: string): Promise<Socket> {
  const client = io(`${url}/conversations`, { transports: ['websocket'], reconnection: false, auth: token ? { token } : {}, ...(socketPath ? { path: socketPath } : {}) });
  return new Promise((resolve, reject) => {
    client.once('ready', () => resolve(client));
    client.once('unauthorized', (e: { code: string }) => reject(new Error(e.code)));
    client.once('connect_error', reject);
  });
}

const next = <T>(client: Socket, event: string): Promise<T> => new Promise((resolve) => client.once(event, resolve));

describe('conversation-api real-time events', () => {
  let db: TestDatabase;
  let redis: TestRedisPrefix;
  let provider: FakeWhatsApp;
  let dataDir: string;
  const replicas: RunningService[] = [];
  const clients: Socket[] = [];
  let gateway: SpawnedApp | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await createTestRedisPrefix();
    provider = await startFakeWhatsApp({ accessToken: WA.accessToken });
    dataDir = await mkdtemp(path.join(tmpdir(), 'conversation-realtime-'));
    const env = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      DATABASE_SCHEMA: db.schema,
      DB_MIGRATE_ON_START: 'true',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: redis.prefix,
      CONVERSATION_JWT_SECRET: randomBytes(32).toString('hex'),
      CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      CONVERSATION_ADMIN_EMAIL: ADMIN_EMAIL,
      CONVERSATION_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CONVERSATION_RATE_LIMIT_PER_MINUTE: '100000',
      WHATSAPP_API_URL: provider.url,
    };
    replicas.push(await startService(conversationApiService, { env, port: 0, host: '127.0.0.1', logger: false }));
    replicas.push(await startService(conversationApiService, { env, port: 0, host: '127.0.0.1', logger: false }));
  });

  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await gateway?.kill('SIGTERM');
    for (const r of replicas) await r.close();
    await provider?.close();
    await redis?.cleanup();
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('pushes new messages, status and assignment changes to the agents of the account on every replica', async () => {
    if (!redis.url) throw new Error('Redis is required for this test (TEST_REDIS_URL)');
    const [a, b] = replicas.map((r) => request(r.url));
    const loginRes = await a.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200);
    const token = loginRes.body.data.access_token as string;
    const auth = { Authorization: `Bearer ${token}` };
    const channel = (await a.post('/api/v1/channels/whatsapp').set(auth).send({ name: 'RT', phone_number_id: WA.phoneNumberId, access_token: WA.accessToken, app_secret: WA.appSecret, verify_token: WA.verifyToken }).expect(201)).body.data;

    // The agent's socket is on replica B; everything below happens on replica A.
    const agent = await connect(replicas[1].url, token);
    clients.push(agent);

    const created = next<{ content: string; message_type: string; conversation_id: string }>(agent, 'message.created');
    const opened = next<{ id: string; status: string }>(agent, 'conversation.created');
    const body = textDelivery({ id: 'wamid.RT1', from: '4917000000001', text: 'realtime hello' });
    await a.post(`/api/v1/webhooks/whatsapp/${channel.id}`).set('content-type', 'application/json').set('x-hub-signature-256', sign(body)).send(body).expect(200);
    expect(await created).toMatchObject({ content: 'realtime hello', message_type: 'incoming' });
    const conversation = await opened;
    expect(conversation.status).toBe('open');

    const status = next<{ id: string; status: string }>(agent, 'conversation.status_changed');
    await a.post(`/api/v1/conversations/${conversation.id}/close`).set(auth).expect(200);
    expect(await status).toMatchObject({ id: conversation.id, status: 'resolved' });

    const me = (await b.get('/api/v1/auth/me').set(auth).expect(200)).body.data;
    const assigned = next<{ id: string; assignee_id: string }>(agent, 'conversation.assigned');
    await a.post(`/api/v1/conversations/${conversation.id}/assign`).set(auth).send({ assignee_id: me.id }).expect(200);
    expect(await assigned).toMatchObject({ id: conversation.id, assignee_id: me.id });

    const note = next<{ private: boolean; content: string }>(agent, 'message.created');
    await a.post(`/api/v1/conversations/${conversation.id}/whisper`).set(auth).send({ content: 'internal' }).expect(201);
    expect(await note).toMatchObject({ private: true, content: 'internal' });
  });

  it('refuses connections without a valid token', async () => {
    await expect(connect(replicas[0].url)).rejects.toThrow('UNAUTHORIZED');
    await expect(connect(replicas[0].url, 'not-a-token')).rejects.toThrow('UNAUTHORIZED');
  });

  it('keeps other accounts out of the room', async () => {
    const a = request(replicas[0].url);
    const { OpenAccount } = await import('../accounts/open-account');
    await replicas[0].app.get(OpenAccount).execute('Elsewhere', { email: 'rt-other@conversation.test', name: 'Other', password: 'other-password-1' });
    const otherToken = (await a.post('/api/v1/auth/login').send({ email: 'rt-other@conversation.test', password: 'other-password-1' }).expect(200)).body.data.access_token;
    const outsider = await connect(replicas[1].url, otherToken);
    clients.push(outsider);
    const seen: string[] = [];
    outsider.onAny((event: string) => seen.push(event));

    const adminToken = (await a.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200)).body.data.access_token;
    const insider = await connect(replicas[1].url, adminToken);
    clients.push(insider);
    const conversation = (await a.get('/api/v1/conversations').set('Authorization', `Bearer ${adminToken}`).expect(200)).body.data[0];
    const got = next(insider, 'message.created');
    await a.post(`/api/v1/conversations/${conversation.id}/whisper`).set('Authorization', `Bearer ${adminToken}`).send({ content: 'for us only' }).expect(201);
    await got;
    // The insider got it through the same Redis channel: the outsider, in the same process, did not.
    expect(seen).toEqual([]);
  });

  it("gives agents the events of their inboxes only", async () => {
    const a = request(replicas[0].url);
    const adminToken = (await a.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200)).body.data.access_token as string;
    const auth = { Authorization: `Bearer ${adminToken}` };
    const roles = (await a.get('/api/v1/roles').set(auth)).body.data as Array<{ id: string; name: string }>;
    const agentRole = roles.find((r) => r.name === 'agent')!.id;
    const member = (await a.post('/api/v1/users').set(auth).send({ email: 'rt-member@conversation.test', name: 'Member', password: 'user-password-1', role_id: agentRole }).expect(201)).body.data;
    await a.post('/api/v1/users').set(auth).send({ email: 'rt-outsider@conversation.test', name: 'Outsider', password: 'user-password-1', role_id: agentRole }).expect(201);
    const conversation = (await a.get('/api/v1/conversations').set(auth).expect(200)).body.data[0];
    await a.patch(`/api/v1/channels/${conversation.channel_id}`).set(auth).send({ member_ids: [member.id] }).expect(200);
    const tokenOf = async (email: string) => (await a.post('/api/v1/auth/login').send({ email, password: 'user-password-1' }).expect(200)).body.data.access_token as string;
    const memberSocket = await connect(replicas[1].url, await tokenOf('rt-member@conversation.test'));
    const outsiderSocket = await connect(replicas[1].url, await tokenOf('rt-outsider@conversation.test'));
    clients.push(memberSocket, outsiderSocket);
    const seen: string[] = [];
    outsiderSocket.onAny((event: string) => seen.push(event));
    const got = next<{ content: string }>(memberSocket, 'message.created');
    await a.post(`/api/v1/conversations/${conversation.id}/whisper`).set(auth).send({ content: 'members only' }).expect(201);
    expect(await got).toMatchObject({ content: 'members only' });
    expect(seen).toEqual([]);
  });

  it('closes sockets whose session ends (logout, on another replica), whose user changes role, and at token expiry', async () => {
    const a = request(replicas[0].url);
    const loginAs = async (email: string, password: string) => (await a.post('/api/v1/auth/login').send({ email, password }).expect(200)).body.data.access_token as string;
    const ended = (client: Socket) =>
      new Promise<{ code: string; reason?: string; disconnected: boolean }>((resolve) =>
        client.once('unauthorized', (e: { code: string; reason?: string }) => client.once('disconnect', () => resolve({ ...e, disconnected: true }))),
      );

    // Logout on replica A closes the socket of that session on replica B, not the socket of another session.
    const leaving = await loginAs(ADMIN_EMAIL, ADMIN_PASSWORD);
    const staying = await loginAs(ADMIN_EMAIL, ADMIN_PASSWORD);
    const leavingSocket = await connect(replicas[1].url, leaving);
    const stayingSocket = await connect(replicas[1].url, staying);
    clients.push(leavingSocket, stayingSocket);
    const closed = ended(leavingSocket);
    await a.post('/api/v1/auth/logout').set('Authorization', `Bearer ${leaving}`).expect(200);
    expect(await closed).toEqual({ code: 'SESSION_ENDED', message: expect.any(String), reason: 'logout', disconnected: true });
    expect(stayingSocket.connected).toBe(true);
    const conversation = (await a.get('/api/v1/conversations').set('Authorization', `Bearer ${staying}`).expect(200)).body.data[0];
    const stillHears = next(stayingSocket, 'message.created');
    await a.post(`/api/v1/conversations/${conversation.id}/whisper`).set('Authorization', `Bearer ${staying}`).send({ content: 'after the logout' }).expect(201);
    await stillHears;
    // The logged-out token cannot open another.
    await expect(connect(replicas[1].url, leaving)).rejects.toThrow('UNAUTHORIZED');

    // A role change ends the user's sockets; so does a deactivation.
    const roles = (await a.get('/api/v1/roles').set('Authorization', `Bearer ${staying}`)).body.data as Array<{ id: string; name: string }>;
    const agentRole = roles.find((r) => r.name === 'agent')!.id;
    const adminRole = roles.find((r) => r.name === 'administrator')!.id;
    const user = (await a.post('/api/v1/users').set('Authorization', `Bearer ${staying}`).send({ email: 'rt-agent@conversation.test', name: 'RT', password: 'user-password-1', role_id: adminRole }).expect(201)).body.data;
    const agentSocket = await connect(replicas[1].url, await loginAs('rt-agent@conversation.test', 'user-password-1'));
    clients.push(agentSocket);
    const demoted = ended(agentSocket);
    await a.patch(`/api/v1/users/${user.id}`).set('Authorization', `Bearer ${staying}`).send({ role_id: agentRole }).expect(200);
    expect(await demoted).toMatchObject({ code: 'SESSION_ENDED', reason: 'role_changed' });
    const again = await connect(replicas[1].url, await loginAs('rt-agent@conversation.test', 'user-password-1'));
    clients.push(again);
    const deactivated = ended(again);
    await a.patch(`/api/v1/users/${user.id}`).set('Authorization', `Bearer ${staying}`).send({ active: false }).expect(200);
    expect(await deactivated).toMatchObject({ code: 'SESSION_ENDED', reason: 'deactivated' });

    // A token of three seconds (expiry is counted in whole seconds; a loaded machine may take one to connect): the socket ends when it expires.
    const { AccessTokens } = await import('../auth/access-tokens');
    const claims = JSON.parse(Buffer.from(staying.split('.')[1], 'base64url').toString()) as { sub: string; acc: string; sid: string };
    const short = await replicas[0].app.get(AccessTokens).sign({ sub: claims.sub, acc: claims.acc, sid: claims.sid }, 3);
    const shortLived = await connect(replicas[1].url, short.token);
    clients.push(shortLived);
    expect(await ended(shortLived)).toMatchObject({ code: 'TOKEN_EXPIRED' });
    expect(stayingSocket.connected).toBe(true);
  });

  it('reaches agents through the gateway (Socket.IO under /conversation/socket.io)', async () => {
    // The built gateway in front of replica B.
    await buildForTest('gateway');
    gateway = await spawnBuiltApp(
      'gateway',
      { NODE_ENV: 'test', LOG_LEVEL: 'warn', GATEWAY_UPSTREAM_CONVERSATION_API: replicas[1].url },
      { unset: ['DATABASE_URL', 'DATABASE_SCHEMA', 'AMQP_URL', 'REDIS_URL'], timeoutMs: 60_000 },
    );
    const gw = gateway.url;

    const viaGateway = request(`${gw}/conversation`);
    const token = (await viaGateway.post('/api/v1/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }).expect(200)).body.data.access_token as string;
    const agent = await connect(gw, token, '/conversation/socket.io');
    clients.push(agent);
    const conversation = (await viaGateway.get('/api/v1/conversations').set('Authorization', `Bearer ${token}`).expect(200)).body.data[0];
    const got = next<{ content: string }>(agent, 'message.created');
    // Raised on replica A, delivered through Redis to replica B, and through the gateway to the agent.
    await request(replicas[0].url).post(`/api/v1/conversations/${conversation.id}/whisper`).set('Authorization', `Bearer ${token}`).send({ content: 'via the gateway' }).expect(201);
    expect(await got).toMatchObject({ content: 'via the gateway' });
  });
});
