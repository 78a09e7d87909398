// The WhatsApp channel end to end against a fake Cloud API: handshake, signed inbound messages creating
// a contact and a conversation, an agent reply going out through the provider, idempotent redelivery,
// private notes never reaching the provider, statuses and their side effects.
import { deliver, delivered, login, ADMIN_EMAIL, ADMIN_PASSWORD, sign, startApp, textDelivery, userWithRole, WA, whatsappChannel, type ConversationTestApp, type Session } from '../../test/helpers';
import { mediaBytes, startFakeWhatsApp, type FakeWhatsApp } from '../../test/fake-whatsapp';

describe('conversation-api WhatsApp channel', () => {
  let t: ConversationTestApp;
  let provider: FakeWhatsApp;
  let admin: Session;
  let channelId: string;

  beforeAll(async () => {
    provider = await startFakeWhatsApp({ accessToken: WA.accessToken });
    t = await startApp({ WHATSAPP_API_URL: provider.url, CONVERSATION_DELIVERY_RETRY_MS: '20', CONVERSATION_DELIVERY_MAX_ATTEMPTS: '3' });
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
    await t.http.patch(`/api/v1/channels/${channelId}`).set(admin.auth).send({ member_ids: [agent.id] }).expect(200);
    const reply = await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(agent.auth).send({ content: 'It ships today.' }).expect(201);
    expect(reply.body.data).toMatchObject({ message_type: 'outgoing', private: false, status: 'pending', source_id: null, content: 'It ships today.', sender: { type: 'user', id: agent.id } });
    expect(await delivered(t, agent.auth, conversation.id, reply.body.data.id)).toMatchObject({ status: 'sent', source_id: 'wamid.FAKE1', error: null });
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

  it('fails a refused reply at once, visibly, and sends it on the retry route', async () => {
    const conversation = (await t.http.get('/api/v1/conversations').set(admin.auth).expect(200)).body.data[0];
    provider.failNext({ status: 400, code: 131047, message: 'Re-engagement message' });
    const before = provider.sent.length;
    const res = await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({ content: 'Are you there?' }).expect(201);
    expect(await delivered(t, admin.auth, conversation.id, res.body.data.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('131047') });
    expect(provider.sent).toHaveLength(before);

    const retried = await t.http.post(`/api/v1/conversations/${conversation.id}/messages/${res.body.data.id}/retry`).set(admin.auth).expect(200);
    expect(retried.body.data).toMatchObject({ status: 'pending', error: null });
    expect(await delivered(t, admin.auth, conversation.id, res.body.data.id)).toMatchObject({ status: 'sent', error: null });
    expect(provider.sent.map((s) => s.text?.body)).toEqual([...provider.sent.slice(0, before).map((s) => s.text?.body), 'Are you there?']);
    const again = await t.http.post(`/api/v1/conversations/${conversation.id}/messages/${res.body.data.id}/retry`).set(admin.auth).expect(409);
    expect(again.body.error.code).toBe('MESSAGE_NOT_RETRYABLE');
  });

  it('retries a transient failure and sends the reply once; gives up after the last attempt', async () => {
    const conversation = (await t.http.get('/api/v1/conversations').set(admin.auth).expect(200)).body.data[0];
    provider.failNext({ status: 503, code: 2, message: 'Service temporarily unavailable', times: 2 });
    const before = provider.sent.length;
    const res = await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({ content: 'Third time lucky' }).expect(201);
    expect(await delivered(t, admin.auth, conversation.id, res.body.data.id)).toMatchObject({ status: 'sent', error: null });
    expect(provider.sent.slice(before).map((s) => s.text?.body)).toEqual(['Third time lucky']);

    provider.failNext({ status: 500, code: 1, message: 'Unknown error', times: 3 });
    const doomed = await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({ content: 'Never arrives' }).expect(201);
    expect(await delivered(t, admin.auth, conversation.id, doomed.body.data.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('Unknown error') });
    expect(provider.sent.map((s) => s.text?.body)).not.toContain('Never arrives');
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
    expect(image).toMatchObject({ content: 'broken part', attachments: [{ type: 'image', media_id: 'MEDIA77', mime_type: 'image/jpeg', url: expect.stringContaining('MEDIA77') }] });
    // Downloaded at once (the provider's URL expires) and served to agents with their token.
    const download = image.attachments[0].download_path as string;
    expect(download).toBe(`/api/v1/conversations/${list.body.data[0].id}/messages/${image.id}/attachments/0`);
    expect(image.attachments[0].storage_key).toBeUndefined();
    const file = await t.http.get(download).set(admin.auth).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    }).expect(200);
    expect(file.headers['content-type']).toBe('image/jpeg');
    expect(file.body).toEqual(mediaBytes('MEDIA77'));
    expect(image.attachments[0].file_size).toBe(mediaBytes('MEDIA77').length);
    await t.http.get(download).expect(401);
    await t.http.get(download.replace(/0$/, '1')).set(admin.auth).expect(404);
  });

  it('cleans text PostgreSQL cannot store (NUL) instead of answering a 500 the provider would retry forever', async () => {
    const nul = await deliver(t, channelId, textDelivery({ id: 'wamid.NUL', from: '15550007777', name: 'Nul Sender', text: 'a\u0000b' })).expect(200);
    expect(nul.body.data.received).toBe(1);
    const list = await t.http.get('/api/v1/conversations').query({ q: 'Nul Sender' }).set(admin.auth).expect(200);
    const fetched = await t.http.get(`/api/v1/conversations/${list.body.data[0].id}`).set(admin.auth).expect(200);
    expect(fetched.body.data.messages.map((m: { content: string }) => m.content)).toContain('ab');
  });

  it('logs and counts items for another phone number on the channel instead of dropping them silently', async () => {
    const foreign = textDelivery({ id: 'wamid.FOREIGN1', from: '15550006666', text: 'for the other number', phoneNumberId: '999000999' });
    expect((await deliver(t, channelId, foreign).expect(200)).body.data).toMatchObject({ received: 0, ignored: 1 });
    const channel = (await t.http.get(`/api/v1/channels/${channelId}`).set(admin.auth).expect(200)).body.data;
    expect(channel.status).toEqual({ ignored_items: 1, last_ignored_at: expect.any(String), last_ignored_phone_number_id: '999000999' });
    expect((await t.http.get('/api/v1/conversations').query({ q: 'for the other number' }).set(admin.auth)).body.meta.total).toBe(0);
  });

  it('answers 409 CHANNEL_CREDENTIALS_UNREADABLE, not a 500, when the credentials were stored under another key', async () => {
    const other = await whatsappChannel(t, admin, { name: 'Rekeyed', phone_number_id: '777000777' });
    const { SecretBox } = await import('../common/secrets');
    const { ChannelsRepository } = await import('../channels/channels.repository');
    const me = (await t.http.get('/api/v1/auth/me').set(admin.auth)).body.data;
    const sealedElsewhere = new SecretBox(Buffer.alloc(32, 7)).seal(JSON.stringify({ access_token: 'a', app_secret: 'b', verify_token: 'c' }), `channel:${other.id}`);
    await t.app.get(ChannelsRepository).update(me.account_id, other.id, { credentials: sealedElsewhere });
    const body = textDelivery({ id: 'wamid.REKEY', from: '15550005555', text: 'hi', phoneNumberId: '777000777' });
    const res = await deliver(t, other.id, body).expect(409);
    expect(res.body.error).toMatchObject({ code: 'CHANNEL_CREDENTIALS_UNREADABLE', message: expect.stringContaining('CONVERSATION_ENCRYPTION_KEY') });
    await t.http.get(`/api/v1/webhooks/whatsapp/${other.id}`).query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'c', 'hub.challenge': '1' }).expect(409);
    // Setting all three credentials again repairs the channel.
    await t.http.patch(`/api/v1/channels/${other.id}`).set(admin.auth).send({ access_token: WA.accessToken, app_secret: WA.appSecret, verify_token: WA.verifyToken }).expect(200);
    await deliver(t, other.id, body).expect(200);
  });

  it('sends media by link and approved templates through the Cloud API', async () => {
    const conversation = (await t.http.get('/api/v1/conversations').set(admin.auth).expect(200)).body.data[0];
    const media = await t.http
      .post(`/api/v1/conversations/${conversation.id}/messages`)
      .set(admin.auth)
      .send({ media: { type: 'document', link: 'https://cdn.example.com/invoice.pdf', filename: 'invoice.pdf' }, content: 'Your invoice' })
      .expect(201);
    expect(media.body.data).toMatchObject({ content: 'Your invoice', content_type: 'document', attachments: [{ type: 'document', url: 'https://cdn.example.com/invoice.pdf', filename: 'invoice.pdf' }] });
    expect(await delivered(t, admin.auth, conversation.id, media.body.data.id)).toMatchObject({ status: 'sent' });
    const template = await t.http
      .post(`/api/v1/conversations/${conversation.id}/messages`)
      .set(admin.auth)
      .send({ template: { name: 'order_update', language: 'en_US', components: [{ type: 'body', parameters: [{ type: 'text', text: '42' }] }] } })
      .expect(201);
    expect(template.body.data).toMatchObject({ content: '[template order_update]', content_type: 'template' });
    expect(await delivered(t, admin.auth, conversation.id, template.body.data.id)).toMatchObject({ status: 'sent' });
    expect(provider.sent.slice(-2)).toMatchObject([
      { type: 'document', media: { link: 'https://cdn.example.com/invoice.pdf', caption: 'Your invoice', filename: 'invoice.pdf' } },
      { type: 'template', template: { name: 'order_update', language: { code: 'en_US' }, components: [{ type: 'body', parameters: [{ type: 'text', text: '42' }] }] } },
    ]);
    const bad = await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({ media: { type: 'image', link: 'http://insecure.example/x.jpg' } }).expect(422);
    expect(bad.body.error.errors[0].field).toContain('link');
    await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({}).expect(422);
    await t.http.post(`/api/v1/conversations/${conversation.id}/messages`).set(admin.auth).send({ content: 'x', template: { name: 'order_update', language: 'en' } }).expect(422);
  });
});
