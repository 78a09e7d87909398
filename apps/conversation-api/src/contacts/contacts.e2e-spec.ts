// Contacts: list and search (name, email, phone, attributes), fetch, update, typed custom attributes.
import { deliver, login, ADMIN_EMAIL, ADMIN_PASSWORD, startApp, textDelivery, userWithRole, whatsappChannel, type ConversationTestApp, type Session } from '../../test/helpers';

describe('conversation-api contacts', () => {
  let t: ConversationTestApp;
  let admin: Session;
  let agent: Session;
  let ids: Record<string, string>;

  beforeAll(async () => {
    t = await startApp();
    admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    agent = await userWithRole(t, admin, 'agent', 'contacts-agent@conversation.test');
    const agentId = (await t.http.get('/api/v1/auth/me').set(agent.auth)).body.data.id;
    const channel = await whatsappChannel(t, admin, { member_ids: [agentId] });
    let n = 0;
    for (const [from, name] of [['4911111111', 'Ada Lovelace'], ['4922222222', 'Grace Hopper'], ['4933333333', 'Alan Turing']]) {
      await deliver(t, channel.id, textDelivery({ id: `wamid.K${++n}`, from, name, text: 'hi' })).expect(200);
    }
    const all = (await t.http.get('/api/v1/contacts').set(admin.auth).expect(200)).body.data as Array<{ id: string; name: string }>;
    ids = Object.fromEntries(all.map((c) => [c.name, c.id]));
    await t.http.post('/api/v1/contacts/attributes').set(admin.auth).send({ key: 'plan', display_name: 'Plan', type: 'list', values: ['free', 'pro'] }).expect(201);
    await t.http.post('/api/v1/contacts/attributes').set(admin.auth).send({ key: 'seats', display_name: 'Seats', type: 'number' }).expect(201);
    await t.http.post('/api/v1/contacts/attributes').set(admin.auth).send({ key: 'renewal', display_name: 'Renewal', type: 'date' }).expect(201);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lists newest first with pagination meta', async () => {
    const res = await t.http.get('/api/v1/contacts').query({ limit: 2 }).set(agent.auth).expect(200);
    expect(res.body.meta).toEqual({ total: 3, page: 1, limit: 2 });
    expect(res.body.data.map((c: { name: string }) => c.name)).toEqual(['Alan Turing', 'Grace Hopper']);
  });

  it('searches by name, phone, email and attribute values, case-insensitively; % and _ match themselves', async () => {
    const q = async (text: string) => (await t.http.get('/api/v1/contacts').query({ q: text }).set(agent.auth).expect(200)).body.data.map((c: { name: string }) => c.name);
    expect(await q('grace')).toEqual(['Grace Hopper']);
    expect(await q('4933')).toEqual(['Alan Turing']);
    await t.http.patch(`/api/v1/contacts/${ids['Ada Lovelace']}`).set(agent.auth).send({ email: 'ada@engine.example' }).expect(200);
    expect(await q('ENGINE.example')).toEqual(['Ada Lovelace']);
    await t.http.patch(`/api/v1/contacts/${ids['Alan Turing']}/attributes`).set(agent.auth).send({ custom_attributes: { plan: 'pro' } }).expect(200);
    expect(await q('pro')).toEqual(['Alan Turing']);
    expect(await q('%')).toEqual([]);
    expect(await q('_')).toEqual([]);
  });

  it('fetches a contact with its conversations', async () => {
    const res = await t.http.get(`/api/v1/contacts/${ids['Grace Hopper']}`).set(agent.auth).expect(200);
    expect(res.body.data).toMatchObject({ name: 'Grace Hopper', phone: '+4922222222', conversations: [{ contact: { id: ids['Grace Hopper'] }, status: 'open' }] });
    await t.http.get('/api/v1/contacts/00000000-0000-4000-8000-000000000000').set(agent.auth).expect(404);
    await t.http.get('/api/v1/contacts/not-a-uuid').set(agent.auth).expect(400);
  });

  it('updates custom attributes typed by their definitions; null removes one', async () => {
    const id = ids['Grace Hopper'];
    const res = await t.http.patch(`/api/v1/contacts/${id}/attributes`).set(agent.auth).send({ custom_attributes: { plan: 'free', seats: 12, renewal: '2027-01-31' } }).expect(200);
    expect(res.body.data.custom_attributes).toEqual({ plan: 'free', seats: 12, renewal: '2027-01-31' });
    const merged = await t.http.patch(`/api/v1/contacts/${id}/attributes`).set(agent.auth).send({ custom_attributes: { seats: null, plan: 'pro' } }).expect(200);
    expect(merged.body.data.custom_attributes).toEqual({ plan: 'pro', renewal: '2027-01-31' });

    const bad = await t.http.patch(`/api/v1/contacts/${id}/attributes`).set(agent.auth).send({ custom_attributes: { plan: 'gold', seats: 'many', shoe_size: 44 } }).expect(422);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(bad.body.error.errors).toEqual([
      { field: 'custom_attributes.plan', message: 'plan must be one of free, pro', code: 'invalid_type' },
      { field: 'custom_attributes.seats', message: 'seats must be a number', code: 'invalid_type' },
      { field: 'custom_attributes.shoe_size', message: 'shoe_size is not a defined attribute', code: 'unknown_attribute' },
    ]);
    await t.http.patch(`/api/v1/contacts/${id}/attributes`).set(agent.auth).send({ custom_attributes: [1] }).expect(422);
    const after = await t.http.get(`/api/v1/contacts/${id}`).set(agent.auth).expect(200);
    expect(after.body.data.custom_attributes).toEqual({ plan: 'pro', renewal: '2027-01-31' });
  });

  it('defines attributes: list needs values, keys are unique', async () => {
    const noValues = await t.http.post('/api/v1/contacts/attributes').set(admin.auth).send({ key: 'tier', display_name: 'Tier', type: 'list' }).expect(422);
    expect(noValues.body.error.errors[0].field).toBe('values');
    const dup = await t.http.post('/api/v1/contacts/attributes').set(admin.auth).send({ key: 'plan', display_name: 'Plan again', type: 'text' }).expect(409);
    expect(dup.body.error.code).toBe('ATTRIBUTE_KEY_TAKEN');
    const defs = await t.http.get('/api/v1/contacts/attributes').set(agent.auth).expect(200);
    expect(defs.body.data.map((d: { key: string; type: string }) => `${d.key}:${d.type}`)).toEqual(['plan:list', 'renewal:date', 'seats:number']);
  });
});
