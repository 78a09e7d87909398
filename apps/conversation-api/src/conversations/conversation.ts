import type { OutboundPayload } from '../channels/whatsapp.client';

export const CONVERSATION_STATUSES = ['open', 'pending', 'snoozed', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export type Priority = (typeof PRIORITIES)[number];

export interface Conversation {
  id: string;
  accountId: string;
  displayId: number;
  channelId: string;
  contactId: string;
  status: ConversationStatus;
  priority: Priority | null;
  assigneeId: string | null;
  teamId: string | null;
  labels: string[];
  snoozedUntil: Date | null;
  waitingSince: Date | null;
  firstReplyCreatedAt: Date | null;
  lastActivityAt: Date;
  createdAt: Date;
  updatedAt: Date;
  contact: { id: string; name: string | null; email: string | null; phone: string | null };
}

export type MessageType = 'incoming' | 'outgoing' | 'activity';
export type MessageStatus = 'pending' | 'sent' | 'delivered' | 'read' | 'failed';

export interface Attachment {
  type: 'image' | 'video' | 'audio' | 'document' | 'sticker' | 'location';
  media_id?: string;
  mime_type?: string;
  sha256?: string;
  filename?: string;
  url?: string;
  file_size?: number;
  /** The downloaded copy in the media store (internal: the API shows `download_path` instead). */
  storage_key?: string;
  latitude?: number;
  longitude?: number;
  name?: string;
  address?: string;
}

export interface Message {
  id: string;
  conversationId: string;
  messageType: MessageType;
  content: string | null;
  contentType: string;
  private: boolean;
  status: MessageStatus;
  sourceId: string | null;
  senderType: 'contact' | 'user' | null;
  senderId: string | null;
  attachments: Attachment[];
  error: string | null;
  /** Channel-specific details: `{email: {subject, from, to, cc, message_id, in_reply_to, references}}` on email messages. */
  contentAttributes: Record<string, unknown>;
  createdAt: Date;
}

/** An outgoing message claimed by the delivery worker, with what sending it needs. */
export interface OutgoingDelivery {
  message: Message;
  /** null: a text reply (`message.content`). */
  outbound: OutboundPayload | null;
  accountId: string;
  channelId: string;
  /** Attempts so far, this one included. */
  attempt: number;
}

/**
 * Whether a failed send is worth another attempt: the provider unreachable, a timeout, throttling
 * (408, 429) or its own failure (5xx) are; a refusal of the message itself (other 4xx: bad
 * recipient, outside the 24-hour window, bad token) and a missing channel or address are not.
 */
export function isTransientDeliveryError(providerStatus: number | undefined, reachedProvider: boolean): boolean {
  if (!reachedProvider) return false;
  if (providerStatus === undefined) return true;
  return providerStatus === 408 || providerStatus === 429 || providerStatus >= 500;
}

/** Delay before attempt `attempt + 1`: `baseMs`, doubling per attempt, at most an hour. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempt - 1), 3_600_000);
}

/**
 * The status machine (chatwoot's rules):
 *
 * ```
 *            incoming message / reopen          resolve
 *   resolved ─────────────────────────► open ─────────────► resolved
 *   snoozed  ── incoming message ──────►  ▲ ── snooze ────► snoozed (snoozed_until)
 *   pending  ── an agent takes it (open) ─┘ ── pending ───► pending
 * ```
 * Every status may be set by an agent; an incoming message moves resolved and snoozed back to open
 * (pending stays pending: a bot is still handling it).
 */
export function statusAfterIncoming(status: ConversationStatus): ConversationStatus {
  return status === 'resolved' || status === 'snoozed' ? 'open' : status;
}
