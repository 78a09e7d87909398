// The permission matrix (each built-in role against each write route), custom roles, reads following
// permissions, and tenant isolation.
import { deliver, login, ADMIN_EMAIL, ADMIN_PASSWORD, otherAccount, startApp, textDelivery, userWithRole, whatsappChannel, type ConversationTestApp, type Session } from '../../test/helpers';

const NONE = '00000000-0000-4000-8000-000000000000';

type Method = 'post' | 'patch' | 'put' | 'delete';
/** Every write route, the permission it needs, and a body. Ids are unknown: a caller past the guard gets 404 or 422, never 403. */
const WRITES: Array<{ method: Method; path: string; permission: string; body?: object }> = [
  { method: 'post', path: '/api/v1/users', permission: 'users:manage', body: { email: 'x@y.test', name: 'X', password: 'password-1', role_id: NONE } },
  { method: 'patch', path: `/api/v1/users/${NONE}`, permission: 'users:manage', body: { name: 'Y' } },
  { method: 'post', path: '/api/v1/teams', permission: 'teams:manage', body: { name: '' } },
  { method: 'patch', path: `/api/v1/teams/${NONE}`, permission: 'teams:manage', body: { name: 'T' } },
  { method: 'put', path: `/api/v1/teams/${NONE}/members`, permission: 'teams:manage', body: { member_ids: [] } },
  { method: 'delete', path: `/api/v1/teams/${NONE}`, permission: 'teams:manage' },
  { method: 'post', path: '/api/v1/roles', permission: 'roles:manage', body: { name: 'Bad Name', permissions: [] } },
  { method: 'patch', path: `/api/v1/roles/${NONE}`, permission: 'roles:manage', body: {} },
  { method: 'delete', path: `/api/v1/roles/${NONE}`, permission: 'roles:manage' },
  { method: 'post', path: '/api/v1/channels/whatsapp', permission: 'channels:manage', body: {} },
  { method: 'post', path: '/api/v1/channels/email', permission: 'channels:manage', body: {} },
  { method: 'post', path: `/api/v1/channels/${NONE}/test`, permission: 'channels:manage' },
  { method: 'patch', path: `/api/v1/channels/${NONE}`, permission: 'channels:manage', body: {} },
  { method: 'post', path: '/api/v1/contacts/attributes', permission: 'attributes:manage', body: {} },
  { method: 'delete', path: `/api/v1/contacts/attributes/${NONE}`, permission: 'attributes:manage' },
  { method: 'patch', path: `/api/v1/contacts/${NONE}`, permission: 'contacts:write', body: { name: 'N' } },
  { method: 'patch', path: `/api/v1/contacts/${NONE}/attributes`, permission: 'contacts:write', body: { custom_attributes: {} } },
  { method: 'post', path: `/api/v1/conversations/${NONE}/messages`, permission: 'conversations:write', body: { content: 'hi' } },
  { method: 'post', path: `/api/v1/conversations/${NONE}/whisper`, permission: 'conversations:write', body: { content: 'hi' } },
  { method: 'post', path: `/api/v1/conversations/${NONE}/assign`, permission: 'conversations:assign', body: { assignee_id: null } },
  { method: 'post', path: `/api/v1/conversations/${NONE}/close`, permission: 'conversations:write' },
  { method: 'post', path: `/api/v1/conversations/${NONE}/reopen`, permission: 'conversations:write' },
  { method: 'post', path: `/api/v1/conversations/${NONE}/status`, permission: 'conversations:write', body: { status: 'pending' } },
  { method: 'patch', path: `/api/v1/conversations/${NONE}`, permission: 'conversations:write', body: { labels: ['vip'] } },
  { method: 'post', path: '/api/v1/recipes', permission: 'recipes:write', body: { name: '' } },
  { method: 'patch', path: `/api/v1/recipes/${NONE}`, permission: 'recipes:write', body: { name: 'R' } },
  { method: 'put', path: `/api/v1/recipes/${NONE}/draft`, permission: 'recipes:write', body: {} },
  { method: 'post', path: `/api/v1/recipes/${NONE}/publish`, permission: 'recipes:publish' },
  { method: 'post', path: `/api/v1/recipes/${NONE}/rollback`, permission: 'recipes:publish', body: { version: 1 } },
  { method: 'post', path: `/api/v1/recipes/${NONE}/disable`, permission: 'recipes:publish' },
  { method: 'post', path: `/api/v1/recipes/${NONE}/enable`, permission: 'recipes:publish' },
  { method: 'delete', path: `/api/v1/recipes/${NONE}`, permission: 'recipes:publish' },
  { method: 'patch', path: '/api/v1/account', permission: 'admin', body: { time_zone: 'Mars/Olympus' } },
  { method: 'post', path: '/api/v1/labels', permission: 'recipes:write', body: { name: '' } },
  { method: 'patch', path: `/api/v1/labels/${NONE}`, permission: 'recipes:write', body: {} },
  { method: 'delete', path: `/api/v1/labels/${NONE}`, permission: 'recipes:write' },
  { method: 'post', path: '/api/v1/canned-responses', permission: 'recipes:write', body: {} },
  { method: 'patch', path: `/api/v1/canned-responses/${NONE}`, permission: 'recipes:write', body: {} },
  { method: 'delete', path: `/api/v1/canned-responses/${NONE}`, permission: 'recipes:write' },
];

const AGENT_PERMISSIONS = ['conversations:read', 'conversations:write', 'conversations:assign', 'contacts:read', 'contacts:write', 'recipes:read', 'analytics:read'];

describe('conversation-api access', () => {
  let t: ConversationTestApp;
  let admin: Session;
  let agent: Session;
  let viewer: Session;

  beforeAll(async () => {
    t = await startApp();
    admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    agent = await userWithRole(t, admin, 'agent', 'agent@conversation.test');
    await t.http.post('/api/v1/roles').set(admin.auth).send({ name: 'viewer', description: 'Reads contacts only', permissions: ['contacts:read'] }).expect(201);
    viewer = await userWithRole(t, admin, 'viewer', 'viewer@conversation.test');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists the built-in roles with their permissions', async () => {
    const res = await t.http.get('/api/v1/roles').set(agent.auth).expect(200);
    expect(res.body.data.map((r: { name: string; built_in: boolean; permissions: string[] }) => [r.name, r.built_in, r.permissions])).toEqual([
      ['administrator', true, ['admin']],
      ['agent', true, AGENT_PERMISSIONS],
      ['viewer', false, ['contacts:read']],
    ]);
  });

  describe.each(WRITES)('$method $path ($permission)', ({ method, path, permission, body }) => {
    const call = (s?: Session) => {
      const req = t.http[method](path);
      if (s) req.set(s.auth);
      return body ? req.send(body) : req;
    };

    it('needs a token', async () => {
      const res = await call().expect(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    });

    it('lets the administrator through', async () => {
      const res = await call(admin);
      expect([401, 403]).not.toContain(res.status);
      expect(res.status).toBeLessThan(500);
    });

    it(`lets the agent through only with ${permission}`, async () => {
      const res = await call(agent);
      if (AGENT_PERMISSIONS.includes(permission)) {
        expect([401, 403]).not.toContain(res.status);
        expect(res.status).toBeLessThan(500);
      } else {
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ success: false, error: { code: 'FORBIDDEN', message: `This action needs the permission ${permission}` } });
      }
    });

    it('refuses a custom role without the permission', async () => {
      expect((await call(viewer)).status).toBe(403);
    });
  });

  it('makes reads follow the permissions', async () => {
    await t.http.get('/api/v1/contacts').set(viewer.auth).expect(200);
    await t.http.get('/api/v1/conversations').set(viewer.auth).expect(403);
    await t.http.get('/api/v1/conversations').set(agent.auth).expect(200);
    await t.http.get('/api/v1/channels').set(agent.auth).expect(200);
    await t.http.post('/api/v1/channels/whatsapp').set(agent.auth).send({}).expect(403);
  });

  it('agents see the conversations and channels of their inboxes only; administrators see all', async () => {
    const agentId = (await t.http.get('/api/v1/auth/me').set(agent.auth)).body.data.id;
    const mine = await whatsappChannel(t, admin, { name: 'Mine', phone_number_id: '900000000001', member_ids: [agentId] });
    const theirs = await whatsappChannel(t, admin, { name: 'Theirs', phone_number_id: '900000000002' });
    await deliver(t, mine.id, textDelivery({ id: 'wamid.SCOPE1', from: '15550009001', text: 'to my inbox', phoneNumberId: '900000000001' })).expect(200);
    await deliver(t, theirs.id, textDelivery({ id: 'wamid.SCOPE2', from: '15550009002', text: 'to another inbox', phoneNumberId: '900000000002' })).expect(200);
    const all = (await t.http.get('/api/v1/conversations?limit=100').set(admin.auth).expect(200)).body.data as Array<{ id: string; channel_id: string; contact: { id: string } }>;
    const inMine = all.find((c) => c.channel_id === mine.id)!;
    const inTheirs = all.find((c) => c.channel_id === theirs.id)!;
    expect(inMine && inTheirs).toBeTruthy();

    const seen = (await t.http.get('/api/v1/conversations?limit=100').set(agent.auth).expect(200)).body;
    expect(seen.data.map((c: { id: string }) => c.id)).toContain(inMine.id);
    expect(seen.data.every((c: { channel_id: string }) => c.channel_id === mine.id)).toBe(true);
    await t.http.get(`/api/v1/conversations/${inMine.id}`).set(agent.auth).expect(200);
    expect((await t.http.get(`/api/v1/conversations/${inTheirs.id}`).set(agent.auth).expect(404)).body.error.code).toBe('CONVERSATION_NOT_FOUND');
    await t.http.post(`/api/v1/conversations/${inTheirs.id}/whisper`).set(agent.auth).send({ content: 'peek' }).expect(404);
    await t.http.post(`/api/v1/conversations/${inTheirs.id}/assign`).set(agent.auth).send({ assignee_id: agentId }).expect(404);
    await t.http.post(`/api/v1/conversations/${inTheirs.id}/close`).set(agent.auth).expect(404);
    await t.http.patch(`/api/v1/conversations/${inTheirs.id}`).set(agent.auth).send({ labels: ['x'] }).expect(404);
    expect((await t.http.get(`/api/v1/contacts/${inTheirs.contact.id}`).set(agent.auth).expect(200)).body.data.conversations).toEqual([]);
    expect((await t.http.get(`/api/v1/contacts/${inMine.contact.id}`).set(agent.auth).expect(200)).body.data.conversations.map((c: { id: string }) => c.id)).toEqual([inMine.id]);

    // Channels: members read theirs; the administrator all of them.
    expect((await t.http.get('/api/v1/channels').set(agent.auth).expect(200)).body.data.map((c: { name: string }) => c.name)).toEqual(['Mine']);
    await t.http.get(`/api/v1/channels/${mine.id}`).set(agent.auth).expect(200);
    await t.http.get(`/api/v1/channels/${theirs.id}`).set(agent.auth).expect(404);
    expect((await t.http.get('/api/v1/channels').set(admin.auth).expect(200)).body.data.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['Mine', 'Theirs']));
    await t.http.get(`/api/v1/conversations/${inTheirs.id}`).set(admin.auth).expect(200);
  });

  it('keeps built-in roles fixed and in-use roles undeletable', async () => {
    const roles = (await t.http.get('/api/v1/roles').set(admin.auth)).body.data as Array<{ id: string; name: string }>;
    const agentRole = roles.find((r) => r.name === 'agent')!;
    const viewerRole = roles.find((r) => r.name === 'viewer')!;
    expect((await t.http.patch(`/api/v1/roles/${agentRole.id}`).set(admin.auth).send({ permissions: ['admin'] }).expect(403)).body.error.code).toBe('BUILT_IN_ROLE');
    expect((await t.http.delete(`/api/v1/roles/${viewerRole.id}`).set(admin.auth).expect(409)).body.error.code).toBe('ROLE_IN_USE');
    const invalid = await t.http.post('/api/v1/roles').set(admin.auth).send({ name: 'bad', permissions: ['everything'] }).expect(422);
    expect(invalid.body.error.errors[0].field).toBe('permissions');
  });

  it('a changed role applies at once; the last administrator cannot be demoted', async () => {
    const roles = (await t.http.get('/api/v1/roles').set(admin.auth)).body.data as Array<{ id: string; name: string }>;
    const viewerRole = roles.find((r) => r.name === 'viewer')!;
    await t.http.patch(`/api/v1/roles/${viewerRole.id}`).set(admin.auth).send({ permissions: ['contacts:read', 'conversations:read'] }).expect(200);
    await t.http.get('/api/v1/conversations').set(viewer.auth).expect(200);

    const me = (await t.http.get('/api/v1/auth/me').set(admin.auth)).body.data;
    const res = await t.http.patch(`/api/v1/users/${me.id}`).set(admin.auth).send({ role_id: viewerRole.id }).expect(409);
    expect(res.body.error.code).toBe('LAST_ADMINISTRATOR');
    await t.http.get('/api/v1/auth/me').set(admin.auth).expect(200).expect((r) => expect(r.body.data.role.name).toBe('administrator'));
  });

  it('nobody grants a permission they do not hold; only administrators grant admin', async () => {
    const roles = async () => (await t.http.get('/api/v1/roles').set(admin.auth)).body.data as Array<{ id: string; name: string }>;
    await t.http.post('/api/v1/roles').set(admin.auth).send({ name: 'user-manager', permissions: ['users:manage', 'contacts:read'] }).expect(201);
    await t.http.post('/api/v1/roles').set(admin.auth).send({ name: 'role-manager', permissions: ['roles:manage', 'contacts:read'] }).expect(201);
    const manager = await userWithRole(t, admin, 'user-manager', 'manager@conversation.test');
    const roleManager = await userWithRole(t, admin, 'role-manager', 'role-manager@conversation.test');
    const all = await roles();
    const id = (name: string) => all.find((r) => r.name === name)!.id;
    const me = (await t.http.get('/api/v1/auth/me').set(admin.auth)).body.data;
    const refused = (res: { body: { error: { code: string; message: string } } }, holds: string) => {
      expect(res.body.error.code).toBe('PERMISSION_NOT_GRANTABLE');
      expect(res.body.error.message).toContain(holds);
    };

    // users:manage: not itself, nor anyone new, an administrator; no role holding more than it has; no administrator touched.
    refused(await t.http.patch(`/api/v1/users/${manager.id}`).set(manager.auth).send({ role_id: id('administrator') }).expect(403), 'admin');
    refused(await t.http.post('/api/v1/users').set(manager.auth).send({ email: 'mole@conversation.test', name: 'Mole', password: 'user-password-1', role_id: id('administrator') }).expect(403), 'admin');
    refused(await t.http.post('/api/v1/users').set(manager.auth).send({ email: 'mole@conversation.test', name: 'Mole', password: 'user-password-1', role_id: id('agent') }).expect(403), 'conversations:read');
    refused(await t.http.patch(`/api/v1/users/${me.id}`).set(manager.auth).send({ active: false }).expect(403), 'admin');
    refused(await t.http.patch(`/api/v1/users/${me.id}`).set(manager.auth).send({ role_id: id('user-manager') }).expect(403), 'admin');
    await t.http.post('/api/v1/users').set(manager.auth).send({ email: 'peer@conversation.test', name: 'Peer', password: 'user-password-1', role_id: id('user-manager') }).expect(201);
    await t.http.get('/api/v1/auth/me').set(manager.auth).expect(200).expect((r) => expect(r.body.data.permissions).toEqual(['users:manage', 'contacts:read']));
    await t.http.get('/api/v1/auth/me').set(admin.auth).expect(200).expect((r) => expect(r.body.data.active).toBe(true));

    // roles:manage: no role holding admin or a permission it lacks, no widening or deleting of such a role.
    refused(await t.http.post('/api/v1/roles').set(roleManager.auth).send({ name: 'sneaky', permissions: ['admin'] }).expect(403), 'admin');
    refused(await t.http.post('/api/v1/roles').set(roleManager.auth).send({ name: 'sneaky', permissions: ['contacts:read', 'users:manage'] }).expect(403), 'users:manage');
    refused(await t.http.patch(`/api/v1/roles/${id('role-manager')}`).set(roleManager.auth).send({ permissions: ['roles:manage', 'admin'] }).expect(403), 'admin');
    refused(await t.http.patch(`/api/v1/roles/${id('user-manager')}`).set(roleManager.auth).send({ name: 'renamed' }).expect(403), 'users:manage');
    refused(await t.http.delete(`/api/v1/roles/${id('user-manager')}`).set(roleManager.auth).expect(403), 'users:manage');
    await t.http.post('/api/v1/roles').set(roleManager.auth).send({ name: 'reader', permissions: ['contacts:read'] }).expect(201);
    expect((await roles()).map((r) => r.name)).not.toContain('sneaky');
  });

  it('of two racing demotions of the last two administrators, one is refused', async () => {
    // Several rounds, each in a fresh account with exactly two administrators stepping down at once
    // (each changing only itself, so neither request can lose its session to the other).
    for (let round = 0; round < 4; round++) {
      const first = await otherAccount(t, `race-${round}-a@conversation.test`);
      const roles = (await t.http.get('/api/v1/roles').set(first.auth)).body.data as Array<{ id: string; name: string }>;
      const adminRole = roles.find((r) => r.name === 'administrator')!.id;
      const agentRole = roles.find((r) => r.name === 'agent')!.id;
      const firstId = (await t.http.get('/api/v1/auth/me').set(first.auth)).body.data.id;
      const secondId = (
        await t.http.post('/api/v1/users').set(first.auth).send({ email: `race-${round}-b@conversation.test`, name: 'B', password: 'user-password-1', role_id: adminRole }).expect(201)
      ).body.data.id;
      const second = await login(t, `race-${round}-b@conversation.test`, 'user-password-1');
      const results = await Promise.all([
        t.http.patch(`/api/v1/users/${firstId}`).set(first.auth).send(round % 2 ? { active: false } : { role_id: agentRole }),
        t.http.patch(`/api/v1/users/${secondId}`).set(second.auth).send({ role_id: agentRole }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.status === 409)!.body.error.code).toBe('LAST_ADMINISTRATOR');
      const survivor = results[0].status === 409 ? first : second;
      const users = (await t.http.get('/api/v1/users').set(survivor.auth).expect(200)).body.data as Array<{ permissions: string[]; active: boolean }>;
      expect(users.filter((u) => u.active && u.permissions.includes('admin'))).toHaveLength(1);
    }
  });

  it('taking admin away from a custom role keeps an active administrator', async () => {
    const other = await otherAccount(t, 'custom-admin@conversation.test');
    const role = (await t.http.post('/api/v1/roles').set(other.auth).send({ name: 'owner', permissions: ['admin'] }).expect(201)).body.data;
    const me = (await t.http.get('/api/v1/auth/me').set(other.auth)).body.data;
    await t.http.patch(`/api/v1/users/${me.id}`).set(other.auth).send({ role_id: role.id }).expect(200);
    const res = await t.http.patch(`/api/v1/roles/${role.id}`).set(other.auth).send({ permissions: ['contacts:read'] }).expect(409);
    expect(res.body.error.code).toBe('LAST_ADMINISTRATOR');
    expect((await t.http.get(`/api/v1/roles/${role.id}`).set(other.auth).expect(200)).body.data.permissions).toEqual(['admin']);
  });

  it('deactivating a user ends its sessions', async () => {
    const temp = await userWithRole(t, admin, 'agent', 'temp@conversation.test');
    const me = (await t.http.get('/api/v1/auth/me').set(temp.auth)).body.data;
    await t.http.patch(`/api/v1/users/${me.id}`).set(admin.auth).send({ active: false }).expect(200);
    await t.http.get('/api/v1/auth/me').set(temp.auth).expect(401);
    await t.http.post('/api/v1/auth/refresh').send({ refresh_token: temp.refresh }).expect(401);
    await t.http.post('/api/v1/auth/login').send({ email: 'temp@conversation.test', password: 'user-password-1' }).expect(401);
  });

  it('isolates tenants: another account sees none of this account’s data, and cannot touch it', async () => {
    const channel = await whatsappChannel(t, admin);
    await deliver(t, channel.id, textDelivery({ id: 'wamid.TENANT1', from: '15550001234', name: 'Tenant One Contact', text: 'hello' })).expect(200);
    const conversation = (await t.http.get('/api/v1/conversations').set(admin.auth).expect(200)).body.data[0];
    const contactId = conversation.contact.id;
    const team = (await t.http.post('/api/v1/teams').set(admin.auth).send({ name: 'Sales' }).expect(201)).body.data;
    const me = (await t.http.get('/api/v1/auth/me').set(admin.auth)).body.data;

    const other = await otherAccount(t, 'other-admin@conversation.test');
    for (const path of ['/api/v1/conversations', '/api/v1/contacts', '/api/v1/teams', '/api/v1/channels']) {
      const res = await t.http.get(path).set(other.auth).expect(200);
      expect(res.body.data).toEqual([]);
    }
    const users = (await t.http.get('/api/v1/users').set(other.auth).expect(200)).body.data;
    expect(users.map((u: { email: string }) => u.email)).toEqual(['other-admin@conversation.test']);
    expect((await t.http.get('/api/v1/roles').set(other.auth)).body.data.map((r: { name: string }) => r.name)).toEqual(['administrator', 'agent']);

    await t.http.get(`/api/v1/conversations/${conversation.id}`).set(other.auth).expect(404);
    await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(other.auth).send({ content: 'hijack' }).expect(404);
    await t.http.post(`/api/v1/conversations/${conversation.id}/whisper`).set(other.auth).send({ content: 'hijack' }).expect(404);
    await t.http.post(`/api/v1/conversations/${conversation.id}/close`).set(other.auth).expect(404);
    await t.http.get(`/api/v1/contacts/${contactId}`).set(other.auth).expect(404);
    await t.http.patch(`/api/v1/contacts/${contactId}`).set(other.auth).send({ name: 'hijack' }).expect(404);
    await t.http.get(`/api/v1/teams/${team.id}`).set(other.auth).expect(404);
    await t.http.get(`/api/v1/users/${me.id}`).set(other.auth).expect(404);
    await t.http.patch(`/api/v1/users/${me.id}`).set(other.auth).send({ active: false }).expect(404);
    await t.http.get(`/api/v1/channels/${channel.id}`).set(other.auth).expect(404);

    // Its own conversation cannot be given to this account's agent or team either.
    const otherChannel = await whatsappChannel(t, other);
    await deliver(t, otherChannel.id, textDelivery({ id: 'wamid.TENANT2', from: '15550001234', text: 'same number, other tenant' })).expect(200);
    const otherConversation = (await t.http.get('/api/v1/conversations').set(other.auth).expect(200)).body.data[0];
    expect(otherConversation.contact.id).not.toBe(contactId);
    expect((await t.http.post(`/api/v1/conversations/${otherConversation.id}/assign`).set(other.auth).send({ assignee_id: me.id }).expect(404)).body.error.code).toBe('ASSIGNEE_NOT_FOUND');
    await t.http.post(`/api/v1/conversations/${otherConversation.id}/assign`).set(other.auth).send({ team_id: team.id }).expect(404);

    // And this account still sees only its own.
    const mine = (await t.http.get('/api/v1/conversations?limit=100').set(admin.auth)).body.data.map((c: { id: string }) => c.id);
    expect(mine).toContain(conversation.id);
    expect(mine).not.toContain(otherConversation.id);
  });
});
