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
  createdAt: Date;
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
