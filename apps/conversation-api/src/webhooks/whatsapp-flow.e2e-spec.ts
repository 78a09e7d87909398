// The WhatsApp channel end to end against a fake Cloud API: handshake, signed inbound messages creating
// a contact and a conversation, an agent reply going out through the provider, idempotent redelivery,
// private notes never reaching the provider, statuses and their side effects.
import { deliver, login, ADMIN_EMAIL, ADMIN_PASSWORD, sign, startApp, textDelivery, userWithRole, WA, whatsappChannel, type ConversationTestApp, type Session } from '../../test/helpers';
import { startFakeWhatsApp, type FakeWhatsApp } from '../../test/fake-whatsapp';

describe('conversation-api WhatsApp channel', () => {
  let t: ConversationTestApp;
  let provider: FakeWhatsApp;
  let admin: Session;
  let channelId: string;

  beforeAll(async () => {
    provider = await startFakeWhatsApp({ accessToken: WA.accessToken });
    t = await startApp({ WHATSAPP_API_URL: provider.url });
    admin = await login(t, ADMIN_EMAIL, ADMIN_PASSWORD);
    channelId = (await whatsappChannel(t, admin)).id;
  });

  afterAll(async () => {
    await t?.close();
    await provider?.close();
  });

  it('never returns the credentials and stores them encrypted', async () => {
    const res = await t.http.get(`/api/v1/channels/${channelId}`).set(admin.auth).expect(200);
    expect(res.body.data).toMatchObject({ id: channelId, type: 'whatsapp', phone_number_id: WA.phoneNumberId, webhook_path: `/api/v1/webhooks/whatsapp/${channelId}`, credentials_set: true });
    expect(JSON.stringify(res.body)).not.toContain(WA.accessToken);
    const { DataSource } = await import('typeorm');
    const [row] = await t.app.get(DataSource).query(`SELECT credentials FROM ${t.config.DATABASE_SCHEMA}.channels WHERE id = $1`, [channelId]);
    expect(row.credentials).toMatch(/^v1\./);
    for (const secret of [WA.accessToken, WA.appSecret, WA.verifyToken]) expect(row.credentials).not.toContain(secret);
  });

  it('answers the verification handshake with the challenge as plain text', async () => {
    const ok = await t.http.get(`/api/v1/webhooks/whatsapp/${channelId}`).query({ 'hub.mode': 'subscribe', 'hub.verify_token': WA.verifyToken, 'hub.challenge': '1158201444' }).expect(200);
    expect(ok.text).toBe('1158201444');
    expect(ok.headers['content-type']).toMatch(/text\/plain/);
    const bad = await t.http.get(`/api/v1/webhooks/whatsapp/${channelId}`).query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '1' }).expect(403);
    expect(bad.body.error.code).toBe('VERIFICATION_FAILED');
  });

  it('refuses unknown channels with 404, never a 5xx', async () => {
    const body = textDelivery({ id: 'wamid.unknown', from: '15550009999', text: 'hi' });
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', 'x'.repeat(300)]) {
      const res = await deliver(t, id, body).expect(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'CHANNEL_NOT_FOUND' } });
      await t.http.get(`/api/v1/webhooks/whatsapp/${id}`).query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'x', 'hub.challenge': '1' }).expect(404);
    }
  });

  it('refuses a delivery whose signature does not match the raw body, storing nothing', async () => {
    const body = textDelivery({ id: 'wamid.forged', from: '15550008888', text: 'forged' });
    const res = await deliver(t, channelId, body, sign(body, 'another-secret')).expect(401);
    expect(res.body.error.code).toBe('INVALID_SIGNATURE');
    await deliver(t, channelId, body, 'sha256=').expect(401);
    // Same JSON, other bytes: the signature covers the raw body.
    await deliver(t, channelId, JSON.stringify(JSON.parse(body), null, 2), sign(body)).expect(401);
    const list = await t.http.get('/api/v1/contacts').query({ q: '15550008888' }).set(admin.auth).expect(200);
    expect(list.body.meta.total).toBe(0);
    const garbage = '{"object":"page"}';
    const bad = await deliver(t, channelId, garbage).expect(400);
    expect(bad.body.error.code).toBe('INVALID_PAYLOAD');
  });

  it('turns a signed inbound message into a contact and a conversation; the agent reply goes out through the provider; a redelivery creates nothing', async () => {
    const body = textDelivery({ id: 'wamid.IN1', from: '4915112345678', name: 'Kim Contact', text: 'Where is my order?' });
    const first = await deliver(t, channelId, body).expect(200);
    expect(first.body).toEqual({ success: true, data: { received: 1, duplicates: 0, statuses: 0, ignored: 0 } });

    const contacts = await t.http.get('/api/v1/contacts').query({ q: 'Kim' }).set(admin.auth).expect(200);
    expect(contacts.body.meta.total).toBe(1);
    expect(contacts.body.data[0]).toMatchObject({ name: 'Kim Contact', phone: '+4915112345678' });
    const contactId = contacts.body.data[0].id;

    const list = await t.http.get('/api/v1/conversations').query({ status: 'open' }).set(admin.auth).expect(200);
    expect(list.body.meta).toEqual({ total: 1, page: 1, limit: 25 });
    const conversation = list.body.data[0];
    expect(conversation).toMatchObject({ display_id: 1, channel_id: channelId, status: 'open', contact: { id: contactId, name: 'Kim Contact' }, first_reply_created_at: null });
    expect(conversation.waiting_since).not.toBeNull();

    // Redelivery of the same provider message id: nothing new.
    const again = await deliver(t, channelId, body).expect(200);
    expect(again.body.data).toMatchObject({ received: 0, duplicates: 1 });
    const concurrent = await Promise.all([1, 2, 3].map(() => deliver(t, channelId, body)));
    expect(concurrent.map((r) => r.body.data.duplicates)).toEqual([1, 1, 1]);
    expect((await t.http.get('/api/v1/contacts').set(admin.auth)).body.meta.total).toBe(1);
    let fetched = await t.http.get(`/api/v1/conversations/${conversation.id}`).set(admin.auth).expect(200);
    expect(fetched.body.data.messages.filter((m: { message_type: string }) => m.message_type === 'incoming')).toHaveLength(1);

    // The agent replies: one call to the provider's send endpoint with the channel's token.
    const agent = await userWithRole(t, admin, 'agent', 'agent-flow@conversation.test');
    const reply = await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(agent.auth).send({ content: 'It ships today.' }).expect(201);
    expect(reply.body.data).toMatchObject({ message_type: 'outgoing', private: false, status: 'sent', source_id: 'wamid.FAKE1', content: 'It ships today.', sender: { type: 'user', id: agent.id } });
    expect(provider.sent).toEqual([{ phoneNumberId: WA.phoneNumberId, to: '4915112345678', type: 'text', text: { body: 'It ships today.', preview_url: false }, id: 'wamid.FAKE1', authorization: `Bearer ${WA.accessToken}` }]);

    fetched = await t.http.get(`/api/v1/conversations/${conversation.id}`).set(admin.auth).expect(200);
    expect(fetched.body.data.first_reply_created_at).not.toBeNull();
    expect(fetched.body.data.waiting_since).toBeNull();

    // The provider's status callbacks move the message forward, never back.
    const statuses = (status: string) =>
      JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: 'W', changes: [{ field: 'messages', value: { metadata: { phone_number_id: WA.phoneNumberId }, statuses: [{ id: 'wamid.FAKE1', status, recipient_id: '4915112345678' }] } }] }] });
    expect((await deliver(t, channelId, statuses('read')).expect(200)).body.data.statuses).toBe(1);
    expect((await deliver(t, channelId, statuses('delivered')).expect(200)).body.data.statuses).toBe(0);
    fetched = await t.http.get(`/api/v1/conversations/${conversation.id}`).set(admin.auth).expect(200);
    expect(fetched.body.data.messages.find((m: { id: string }) => m.id === reply.body.data.id).status).toBe('read');

    // A contact fetched with its conversations.
    const contact = await t.http.get(`/api/v1/contacts/${contactId}`).set(admin.auth).expect(200);
    expect(contact.body.data.conversations.map((c: { id: string }) => c.id)).toEqual([conversation.id]);
  });

  it('never sends a private note to the provider', async () => {
    const conversation = (await t.http.get('/api/v1/conversations').set(admin.auth).expect(200)).body.data[0];
    const before = provider.sent.length;
    const note = await t.http.post(`/api/v1/conversations/${conversation.id}/whisper`).set(admin.auth).send({ content: 'VIP customer, be nice' }).expect(201);
    expect(note.body.data).toMatchObject({ private: true, message_type: 'outgoing', status: 'sent', source_id: null });
    expect(provider.sent).toHaveLength(before);
    expect(JSON.stringify(provider.sent)).not.toContain('VIP customer');
    const fetched = await t.http.get(`/api/v1/conversations/${conversation.id}`).set(admin.auth).expect(200);
    expect(fetched.body.data.messages.some((m: { content: string; private: boolean }) => m.content === 'VIP customer, be nice' && m.private)).toBe(true);
  });

  it('keeps a refused reply as failed and answers 502 PROVIDER_ERROR', async () => {
    const conversation = (await t.http.get('/api/v1/conversations').set(admin.auth).expect(200)).body.data[0];
    provider.failNext({ status: 400, code: 131047, message: 'Re-engagement message' });
    const res = await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({ content: 'Are you there?' }).expect(502);
    expect(res.body.error.code).toBe('PROVIDER_ERROR');
    const fetched = await t.http.get(`/api/v1/conversations/${conversation.id}`).set(admin.auth).expect(200);
    const failed = fetched.body.data.messages.find((m: { content: string }) => m.content === 'Are you there?');
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('131047') });
  });

  it('reopens a resolved conversation on an incoming message, with an activity line', async () => {
    const conversation = (await t.http.get('/api/v1/conversations').set(admin.auth).expect(200)).body.data[0];
    const closed = await t.http.post(`/api/v1/conversations/${conversation.id}/close`).set(admin.auth).expect(200);
    expect(closed.body.data).toMatchObject({ status: 'resolved', waiting_since: null });
    expect((await t.http.get('/api/v1/conversations').query({ status: 'open' }).set(admin.auth)).body.meta.total).toBe(0);

    await deliver(t, channelId, textDelivery({ id: 'wamid.IN2', from: '4915112345678', text: 'One more thing' })).expect(200);
    const fetched = await t.http.get(`/api/v1/conversations/${conversation.id}`).set(admin.auth).expect(200);
    expect(fetched.body.data.status).toBe('open');
    expect(fetched.body.data.waiting_since).not.toBeNull();
    const contents = fetched.body.data.messages.map((m: { content: string }) => m.content);
    expect(contents).toEqual(expect.arrayContaining(['Conversation was resolved by Administrator', 'Conversation was reopened by a new message from the contact', 'One more thing']));
    // Still one conversation for the contact.
    expect((await t.http.get('/api/v1/conversations').set(admin.auth)).body.meta.total).toBe(1);
  });

  it('stores inbound media with its download URL looked up at the provider', async () => {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: 'W', changes: [{ field: 'messages', value: { metadata: { phone_number_id: WA.phoneNumberId }, contacts: [{ profile: { name: 'Pat' }, wa_id: '33612345678' }], messages: [{ from: '33612345678', id: 'wamid.IMG1', type: 'image', image: { id: 'MEDIA77', mime_type: 'image/jpeg', sha256: 'abc', caption: 'broken part' } }] } }] }],
    });
    await deliver(t, channelId, body).expect(200);
    expect(provider.mediaLookups).toContain('MEDIA77');
    const list = await t.http.get('/api/v1/conversations').query({ q: 'Pat' }).set(admin.auth).expect(200);
    const fetched = await t.http.get(`/api/v1/conversations/${list.body.data[0].id}`).set(admin.auth).expect(200);
    const image = fetched.body.data.messages.find((m: { content_type: string }) => m.content_type === 'image');
    expect(image).toMatchObject({ content: 'broken part', attachments: [{ type: 'image', media_id: 'MEDIA77', mime_type: 'image/jpeg', url: expect.stringContaining('MEDIA77'), file_size: 1234 }] });
  });

  it('cleans text PostgreSQL cannot store (NUL) instead of answering a 500 the provider would retry forever', async () => {
    const nul = await deliver(t, channelId, textDelivery({ id: 'wamid.NUL', from: '15550007777', name: 'Nul Sender', text: 'a\u0000b' })).expect(200);
    expect(nul.body.data.received).toBe(1);
    const list = await t.http.get('/api/v1/conversations').query({ q: 'Nul Sender' }).set(admin.auth).expect(200);
    const fetched = await t.http.get(`/api/v1/conversations/${list.body.data[0].id}`).set(admin.auth).expect(200);
    expect(fetched.body.data.messages.map((m: { content: string }) => m.content)).toContain('ab');
  });
});
