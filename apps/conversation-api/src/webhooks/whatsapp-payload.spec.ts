import { parseWhatsAppDelivery, PayloadError } from './whatsapp-payload';

const delivery = (value: object) => ({ object: 'whatsapp_business_account', entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: 'PN1' }, ...value } }] }] });

describe('parseWhatsAppDelivery', () => {
  it('reads a text message with the sender profile name', () => {
    const parsed = parseWhatsAppDelivery(delivery({ contacts: [{ profile: { name: 'Kim' }, wa_id: '4915112345678' }], messages: [{ from: '4915112345678', id: 'wamid.A', timestamp: '1700000000', type: 'text', text: { body: 'Hi' } }] }));
    expect(parsed.messages).toEqual([{ phoneNumberId: 'PN1', sourceId: 'wamid.A', from: '4915112345678', profileName: 'Kim', content: 'Hi', contentType: 'text', attachments: [] }]);
  });

  it('drops NUL characters and replaces unpaired surrogates, which PostgreSQL text cannot hold', () => {
    const parsed = parseWhatsAppDelivery(delivery({ contacts: [{ profile: { name: 'K\u0000im' }, wa_id: '1' }], messages: [{ from: '1', id: 'wamid.N', type: 'text', text: { body: 'a\u0000b\uD800c 😀' } }] }));
    expect(parsed.messages[0]).toMatchObject({ content: 'ab\uFFFDc 😀', profileName: 'Kim' });
  });

  it('reads media with caption as an attachment', () => {
    const parsed = parseWhatsAppDelivery(delivery({ messages: [{ from: '1', id: 'wamid.B', type: 'image', image: { id: 'MEDIA1', mime_type: 'image/jpeg', sha256: 'abc', caption: 'look' } }] }));
    expect(parsed.messages[0]).toMatchObject({ content: 'look', contentType: 'image', mediaId: 'MEDIA1', attachments: [{ type: 'image', media_id: 'MEDIA1', mime_type: 'image/jpeg', sha256: 'abc' }] });
  });

  it('reads statuses and ignores other fields', () => {
    const body = delivery({ statuses: [{ id: 'wamid.C', status: 'read', recipient_id: '1' }, { id: 'wamid.D', status: 'failed', errors: [{ code: 131047, title: 'Re-engagement message' }] }] });
    body.entry[0].changes.push({ field: 'message_template_status_update', value: {} } as never);
    expect(parseWhatsAppDelivery(body).statuses).toEqual([
      { phoneNumberId: 'PN1', sourceId: 'wamid.C', status: 'read', error: null },
      { phoneNumberId: 'PN1', sourceId: 'wamid.D', status: 'failed', error: '131047 Re-engagement message' },
    ]);
  });

  it.each([
    [[], 'the body must be a JSON object'],
    [{ object: 'page', entry: [] }, 'object must be whatsapp_business_account'],
    [{ object: 'whatsapp_business_account', entry: {} }, 'entry must be a list'],
    [delivery({ messages: [{ id: 'x', type: 'text', text: { body: 'no sender' } }] }), 'entry.0.changes.0.value.messages.0 needs id, from and type'],
    [delivery({ messages: [{ id: 'x', from: '1', type: 'text', text: {} }] }), 'entry.0.changes.0.value.messages.0.text.body must be a string'],
  ])('refuses %j', (body, message) => {
    expect(() => parseWhatsAppDelivery(body)).toThrow(new PayloadError(message));
  });
});
