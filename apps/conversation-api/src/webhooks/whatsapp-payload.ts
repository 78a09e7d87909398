import type { Attachment, MessageStatus } from '../conversations/conversation';
import type { InboundMessage } from '../conversations/inbound.service';

/** One message of a WhatsApp Cloud API delivery: the channel-neutral message, for which number, and its media. */
export interface ParsedInbound extends InboundMessage {
  phoneNumberId: string;
  /** Media whose download URL is looked up at the provider. */
  mediaId?: string;
}

export interface ParsedStatus {
  phoneNumberId: string;
  sourceId: string;
  status: MessageStatus;
  error: string | null;
}

export interface ParsedDelivery {
  messages: ParsedInbound[];
  statuses: ParsedStatus[];
}

export class PayloadError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** PostgreSQL text holds neither NUL nor unpaired surrogates: the first is dropped, the others become U+FFFD. */
const clean = (v: string): string => v.replace(/\u0000/g, '').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
const str = (v: unknown): string | undefined => (typeof v === 'string' ? clean(v) : undefined);
const list = (v: unknown, where: string): unknown[] => {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new PayloadError(`${where} must be a list`);
  return v;
};

const MEDIA = ['image', 'video', 'audio', 'document', 'sticker'] as const;
const STATUSES: Record<string, MessageStatus> = { sent: 'sent', delivered: 'delivered', read: 'read', failed: 'failed' };

function message(raw: unknown, phoneNumberId: string, names: Map<string, string>, where: string): ParsedInbound {
  if (!isObj(raw)) throw new PayloadError(`${where} must be an object`);
  const id = str(raw.id);
  const from = str(raw.from);
  const type = str(raw.type);
  if (!id || !from || !type) throw new PayloadError(`${where} needs id, from and type`);
  const base = { phoneNumberId, sourceId: id, from, profileName: names.get(from) ?? null, attachments: [] as Attachment[] };
  if (type === 'text') {
    const body = isObj(raw.text) ? str(raw.text.body) : undefined;
    if (body === undefined) throw new PayloadError(`${where}.text.body must be a string`);
    return { ...base, content: body, contentType: 'text' };
  }
  if ((MEDIA as readonly string[]).includes(type)) {
    const media = raw[type];
    if (!isObj(media) || !str(media.id)) throw new PayloadError(`${where}.${type}.id must be a string`);
    const attachment: Attachment = {
      type: type as Attachment['type'],
      media_id: str(media.id),
      ...(str(media.mime_type) ? { mime_type: str(media.mime_type) } : {}),
      ...(str(media.sha256) ? { sha256: str(media.sha256) } : {}),
      ...(str(media.filename) ? { filename: str(media.filename) } : {}),
    };
    return { ...base, content: str(media.caption) ?? null, contentType: type, attachments: [attachment], mediaId: str(media.id) };
  }
  if (type === 'location' && isObj(raw.location)) {
    const l = raw.location;
    const attachment: Attachment = {
      type: 'location',
      ...(typeof l.latitude === 'number' ? { latitude: l.latitude } : {}),
      ...(typeof l.longitude === 'number' ? { longitude: l.longitude } : {}),
      ...(str(l.name) ? { name: str(l.name) } : {}),
      ...(str(l.address) ? { address: str(l.address) } : {}),
    };
    return { ...base, content: str(l.name) ?? str(l.address) ?? null, contentType: 'location', attachments: [attachment] };
  }
  if (type === 'button' && isObj(raw.button)) return { ...base, content: str(raw.button.text) ?? null, contentType: 'text' };
  if (type === 'interactive' && isObj(raw.interactive)) {
    const reply = isObj(raw.interactive.button_reply) ? raw.interactive.button_reply : isObj(raw.interactive.list_reply) ? raw.interactive.list_reply : null;
    return { ...base, content: reply ? (str(reply.title) ?? null) : null, contentType: 'text' };
  }
  // reactions, contacts cards, orders, unsupported: kept so that agents see something arrived.
  return { ...base, content: `[${type} message: not shown here]`, contentType: 'unsupported' };
}

/**
 * Reads a WhatsApp Cloud API webhook delivery: `{object: 'whatsapp_business_account', entry: [{id,
 * changes: [{field: 'messages', value: {metadata: {phone_number_id}, contacts, messages, statuses}}]}]}`.
 * Other fields (templates, account updates) are ignored; a body that is not in this shape throws
 * PayloadError naming the part.
 */
export function parseWhatsAppDelivery(body: unknown): ParsedDelivery {
  if (!isObj(body)) throw new PayloadError('the body must be a JSON object');
  if (body.object !== 'whatsapp_business_account') throw new PayloadError('object must be whatsapp_business_account');
  const out: ParsedDelivery = { messages: [], statuses: [] };
  list(body.entry, 'entry').forEach((entry, i) => {
    if (!isObj(entry)) throw new PayloadError(`entry.${i} must be an object`);
    list(entry.changes, `entry.${i}.changes`).forEach((change, j) => {
      const where = `entry.${i}.changes.${j}`;
      if (!isObj(change)) throw new PayloadError(`${where} must be an object`);
      if (change.field !== 'messages') return;
      const value = change.value;
      if (!isObj(value)) throw new PayloadError(`${where}.value must be an object`);
      const phoneNumberId = isObj(value.metadata) ? str(value.metadata.phone_number_id) : undefined;
      if (!phoneNumberId) throw new PayloadError(`${where}.value.metadata.phone_number_id must be a string`);
      const names = new Map<string, string>();
      for (const c of list(value.contacts, `${where}.value.contacts`)) {
        if (isObj(c) && str(c.wa_id) && isObj(c.profile) && str(c.profile.name)) names.set(str(c.wa_id)!, str(c.profile.name)!);
      }
      list(value.messages, `${where}.value.messages`).forEach((m, k) => out.messages.push(message(m, phoneNumberId, names, `${where}.value.messages.${k}`)));
      list(value.statuses, `${where}.value.statuses`).forEach((s, k) => {
        if (!isObj(s) || !str(s.id) || !str(s.status)) throw new PayloadError(`${where}.value.statuses.${k} needs id and status`);
        const status = STATUSES[str(s.status)!];
        if (!status) return;
        const errors = Array.isArray(s.errors) ? s.errors.filter(isObj) : [];
        const error = errors.length ? errors.map((e) => `${e.code ?? ''} ${str(e.title) ?? str(e.message) ?? ''}`.trim()).join('; ') : null;
        out.statuses.push({ phoneNumberId, sourceId: str(s.id)!, status, error });
      });
    });
  });
  return out;
}
