/** The engine's work items (`inbound_events`) as the receiver stores them and the worker reads them. */

/** Kinds of work items in `inbound_events`. */
export type InboundKind = 'comment' | 'message' | 'story_reply' | 'postback' | 'follow_up' | 'backfill' | 'echo' | 'seen' | 'read_fallback';

export interface NewInbound {
  account_id: number;
  dedup_key: string;
  kind: InboundKind;
  /** Per-person ordering key: items of one subject are processed one at a time, oldest first. */
  subject: string;
  payload: Record<string, unknown>;
  /** Not before this time (default: now). */
  not_before?: Date;
}

/** A signed delivery the receiver could not read, kept for inspection. */
export interface UnreadableDelivery {
  /** One of the delivery's accounts, when it names a known one. */
  accountId: number | null;
  /** The same delivery again (the platform retries what was refused) is kept once. */
  dedupKey: string;
  body: unknown;
  reason: string;
}

export interface InboundRow {
  id: string;
  account_id: number;
  dedup_key: string;
  kind: InboundKind;
  subject: string;
  payload: Record<string, any>;
  attempts: number;
  applied_at: Date | null;
  run_id: string | null;
}
