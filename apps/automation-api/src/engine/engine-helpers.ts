import { randomBytes } from 'node:crypto';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import type { GraphMessage } from '../graph/graph-client';

/** The engine's pure helpers: message shapes, @mentions, Graph timestamps, click codes, post coverage. */

export type TemplateMessage = Extract<GraphMessage, { attachment: unknown }>;

export function isTemplate(message: unknown): message is TemplateMessage {
  const m = message as TemplateMessage | undefined;
  return Boolean(m && typeof m === 'object' && m.attachment?.type === 'template' && Array.isArray(m.attachment.payload?.buttons));
}

export function hasPostback(message: unknown): boolean {
  return isTemplate(message) && message.attachment.payload.buttons.some((b) => b.type === 'postback');
}

/**
 * A button template as plain text: the text, then each link button as `Title: URL` on its own line
 * (the URL the button carried, so tracked `/r/{code}` links stay tracked), and for a postback button
 * (opening or gate button) `Reply "<title>" to continue.` — a text message from the person then
 * counts as the tap (runs.text_fallback).
 */
export function templateAsText(message: TemplateMessage): string {
  const { text, buttons } = message.attachment.payload;
  const lines = buttons.map((b) => (b.type === 'web_url' ? `${b.title}: ${b.url}` : `Reply "${b.title}" to continue.`));
  return [text, '', ...lines].join('\n');
}

/** Whether `text` @mentions `username` (case-insensitive, whole handle). */
export function mentions(text: string, username: string): boolean {
  const handle = username.replace(/^@/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.@])@${handle}(?!\\w|\\.\\w)`, 'i').test(text);
}

/** Epoch ms of a Graph timestamp (`2024-01-01T10:00:00+0000`); null when absent or unreadable. */
export function graphTime(ts: string | undefined): number | null {
  if (!ts) return null;
  const ms = Date.parse(ts.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : null;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A short unguessable code: 12 base62 characters from crypto.randomBytes (≈71 bits). */
export function newClickCode(length = 12): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/** Whether a comment automation covers the post: next_post only its attached reel; else media_ids (empty = all). */
export function coversMedia(a: AutomationEntity, mediaId: string | null): boolean {
  if (a.next_post) return a.reel_status === 'attached' && mediaId !== null && (a.reel_media_id === mediaId || (a.media_ids ?? []).includes(mediaId));
  if (!a.media_ids || a.media_ids.length === 0) return true;
  return mediaId !== null && a.media_ids.includes(mediaId);
}

/** The text a person sees first in a message: its text, or a template's text. */
export function messageText(message: unknown): string {
  if (isTemplate(message)) return message.attachment.payload.text;
  const text = (message as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : '';
}

/** A message of the account's conversation with a person (Conversations API), as far as matching needs it. */
export interface ConversationMessage {
  id: string;
  created_time?: string;
  from?: { id: string };
  message?: string;
}

/** How far the platform's clock may be behind ours when a sent message is looked up. */
export const SEND_LOOKUP_SLACK_MS = 120_000;

/**
 * The conversation message that is the arrival of an unconfirmed send: from the account (not from the
 * person), not older than the intent (minus clock slack), not already the confirmation of another send,
 * and with the intent's text (a template may show up without text; its text otherwise). Oldest first.
 */
export function findArrival(
  messages: ConversationMessage[],
  send: { payload: Record<string, unknown>; created_at: Date | string },
  who: { accountId: string | null; personId: string },
  known: Set<string>,
): ConversationMessage | null {
  const message = send.payload.message;
  const text = messageText(message).trim();
  const since = new Date(send.created_at).getTime() - SEND_LOOKUP_SLACK_MS;
  const candidates = messages
    .filter((m) => !known.has(m.id))
    .filter((m) => (who.accountId ? m.from?.id === who.accountId : m.from?.id !== undefined && m.from.id !== who.personId))
    .filter((m) => (graphTime(m.created_time) ?? Infinity) >= since)
    .filter((m) => {
      const got = (m.message ?? '').trim();
      return got === text || (got === '' && isTemplate(message)) || (text !== '' && got.startsWith(text) && isTemplate(message));
    });
  candidates.sort((a, b) => (graphTime(a.created_time) ?? 0) - (graphTime(b.created_time) ?? 0));
  return candidates[0] ?? null;
}
