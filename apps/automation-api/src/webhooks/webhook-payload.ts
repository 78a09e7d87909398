import { ApiError } from '@platform/errors';
import type { InboundKind, NewInbound } from '../engine/inbound';

/**
 * A signed delivery whose shape is not the platform's (`changes: {}`, `entry: [null]`, an id that
 * is an object): answered 400 in the service's `{error}` shape, and kept for inspection, never
 * processed (WebhooksService).
 */
export class UnreadableDeliveryError extends ApiError {
  constructor(readonly reason: string) {
    super(400, 'BAD_REQUEST', `Unreadable delivery: ${reason}; it was kept for inspection and will not be processed`);
  }
}

/** One work item of an entry, before it is bound to the entry's account. */
export interface DeliveryEvent {
  dedup_key: string;
  kind: InboundKind;
  /** The platform id of the person the item is about (ordering per person). */
  person: string;
  payload: Record<string, unknown>;
}

export interface DeliveryEntry {
  /** `entry.id`: the account's platform id, or null when the entry has none. */
  id: string | null;
  events: DeliveryEvent[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object where the platform sends one; absent (undefined, null) is undefined; anything else is unreadable. */
function object(value: unknown, path: string): Json | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new UnreadableDeliveryError(`${path} must be an object`);
  return value;
}

/** A list where the platform sends one (absent is empty). */
function list(value: unknown, path: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new UnreadableDeliveryError(`${path} must be an array`);
  return value;
}

/** A platform id (a string, or a number from a hand-written delivery); absent or empty is null. */
function id(value: unknown, path: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  throw new UnreadableDeliveryError(`${path} must be a string`);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The entry ids a delivery names, read leniently: the signature is checked with their accounts' secrets before the delivery is judged. */
export function entryIds(body: unknown): string[] {
  const entries = isObject(body) && Array.isArray(body.entry) ? body.entry : [];
  const ids = entries.map((e: unknown) => (isObject(e) && (typeof e.id === 'string' || typeof e.id === 'number') ? String(e.id) : ''));
  return [...new Set(ids.filter(Boolean))];
}

/**
 * The entries of a delivery (`{object, entry: [{id, time, changes?, messaging?}]}`) and their work
 * items: comments (not the account's own), messages (not echoes nor deletions), postbacks. Throws
 * UnreadableDeliveryError naming the first part that is not what the platform sends.
 */
export function readDelivery(body: unknown): DeliveryEntry[] {
  if (!isObject(body)) throw new UnreadableDeliveryError('the body must be a JSON object');
  return list(body.entry, 'entry').map((raw, i) => {
    const path = `entry.${i}`;
    const entry = object(raw, path) ?? unreadable(`${path} must be an object`);
    const entryId = id(entry.id, `${path}.id`);
    return { id: entryId, events: readEntry(entry, path, entryId ?? '') };
  });
}

/** The work items of one entry (`entryId` tells the account's own comments and messages apart). */
export function readEntry(entry: Json, path: string, entryId: string): DeliveryEvent[] {
  const out: DeliveryEvent[] = [];
  list(entry.changes, `${path}.changes`).forEach((raw, j) => {
    const at = `${path}.changes.${j}`;
    const change = object(raw, at) ?? unreadable(`${at} must be an object`);
    if (change.field !== 'comments' && change.field !== 'live_comments') return;
    const comment = comments(object(change.value, `${at}.value`), `${at}.value`, entryId);
    if (comment) out.push(comment);
  });
  list(entry.messaging, `${path}.messaging`).forEach((raw, j) => {
    const at = `${path}.messaging.${j}`;
    const event = messaging(object(raw, at) ?? unreadable(`${at} must be an object`), at, entryId);
    if (event) out.push(event);
  });
  return out;
}

function comments(v: Json | undefined, at: string, entryId: string): DeliveryEvent | null {
  if (!v) return null;
  const commentId = id(v.id, `${at}.id`);
  const from = object(v.from, `${at}.from`);
  const fromId = id(from?.id, `${at}.from.id`);
  if (!commentId || !fromId) return null;
  if (fromId === entryId) return null; // the account's own comments (our public replies) come back here
  return {
    dedup_key: `comment:${commentId}`,
    kind: 'comment',
    person: fromId,
    payload: {
      comment_id: commentId,
      media_id: id(object(v.media, `${at}.media`)?.id, `${at}.media.id`),
      text: text(v.text),
      from: { id: fromId, username: textOrNull(from?.username) },
      parent_id: id(v.parent_id, `${at}.parent_id`),
      entry_id: entryId,
    },
  };
}

function messaging(m: Json, at: string, entryId: string): DeliveryEvent | null {
  const sender = id(object(m.sender, `${at}.sender`)?.id, `${at}.sender.id`);
  if (!sender) return null;
  if (sender === entryId) return echo(m, at);
  const msg = object(m.message, `${at}.message`);
  const read = object(m.read, `${at}.read`);
  if (read && !msg) {
    // messaging_seen: the person read the conversation up to a message (`mid`) or a time (`watermark`, ms).
    const mid = id(read.mid, `${at}.read.mid`);
    const watermark = id(read.watermark, `${at}.read.watermark`) ?? id(m.timestamp, `${at}.timestamp`);
    return {
      dedup_key: `seen:${sender}:${mid ?? watermark ?? ''}`,
      kind: 'seen',
      person: sender,
      payload: { sender_id: sender, mid, watermark: watermark === null ? null : Number(watermark), entry_id: entryId },
    };
  }
  if (msg) {
    const mid = id(msg.mid, `${at}.message.mid`);
    if (msg.is_echo || msg.is_deleted || !mid) return null;
    const story = object(object(msg.reply_to, `${at}.message.reply_to`)?.story, `${at}.message.reply_to.story`);
    return {
      dedup_key: `message:${mid}`,
      kind: story ? 'story_reply' : 'message',
      person: sender,
      payload: { mid, sender_id: sender, text: text(msg.text), story_id: id(story?.id, `${at}.message.reply_to.story.id`), entry_id: entryId },
    };
  }
  const postback = object(m.postback, `${at}.postback`);
  if (!postback) return null;
  const payload = textOrNull(postback.payload);
  const mid = id(postback.mid, `${at}.postback.mid`) ?? `${sender}:${id(m.timestamp, `${at}.timestamp`) ?? ''}:${payload ?? ''}`;
  return {
    dedup_key: `postback:${mid}`,
    kind: 'postback',
    person: sender,
    payload: { mid, sender_id: sender, payload, title: textOrNull(postback.title), entry_id: entryId },
  };
}

/**
 * A message the account sent (`is_echo`): the service's own sends and those of a person answering by
 * hand in the inbox (human takeover, ProcessEcho tells them apart). Other events from the account are dropped.
 */
function echo(m: Json, at: string): DeliveryEvent | null {
  const msg = object(m.message, `${at}.message`);
  const recipient = id(object(m.recipient, `${at}.recipient`)?.id, `${at}.recipient.id`);
  const mid = msg ? id(msg.mid, `${at}.message.mid`) : null;
  if (!msg || !msg.is_echo || msg.is_deleted || !mid || !recipient) return null;
  return { dedup_key: `echo:${mid}`, kind: 'echo', person: recipient, payload: { mid, recipient_id: recipient, text: text(msg.text), timestamp: id(m.timestamp, `${at}.timestamp`) } };
}

function unreadable(reason: string): never {
  throw new UnreadableDeliveryError(reason);
}

/** An entry's work items for its account. */
export function toItems(accountId: number, entryId: string, entry: Json): NewInbound[] {
  return itemsFor(accountId, readEntry(entry, 'entry', entryId));
}

/** Work items of an account's entry, ordered per person of that account. */
export function itemsFor(accountId: number, events: DeliveryEvent[]): NewInbound[] {
  return events.map((e) => ({
    account_id: accountId,
    dedup_key: e.dedup_key,
    kind: e.kind,
    subject: `${accountId}:${e.person}`,
    payload: e.payload,
  }));
}
