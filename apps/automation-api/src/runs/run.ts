/**
 * States of a run (one person going through one automation). The engine moves runs:
 * started → (public reply) → dm_sent → awaiting_tap → gated ⇄ awaiting_tap → awaiting_email →
 * link_sent → done; or skipped, skipped_other_tool, error. Each step also stamps its own column, so
 * the funnel counts steps reached, not only the final state.
 */
export const RUN_STATES = [
  'started',
  'dm_sent',
  'awaiting_tap',
  'gated',
  'awaiting_email',
  'link_sent',
  'done',
  'skipped',
  'skipped_other_tool',
  'error',
] as const;
export type RunState = (typeof RUN_STATES)[number];

/** A step's own timestamp column of `runs`, set once when the run reaches the step. */
export type RunStamp =
  | 'public_reply_sent_at'
  | 'dm_sent_at'
  | 'button_tapped_at'
  | 'gated_at'
  | 'gate_passed_at'
  | 'email_asked_at'
  | 'email_retry_at'
  | 'email_captured_at'
  | 'email_expired_at'
  | 'link_sent_at'
  | 'followed_up_at'
  | 'read_fallback_at';

/** A `runs` row as the engine reads it. */
export interface RunRow {
  id: string;
  account_id: number;
  automation_id: number;
  contact_ig_id: string;
  username: string | null;
  trigger: string;
  media_id: string | null;
  comment_id: string | null;
  parent_comment_id: string | null;
  message_id: string | null;
  state: RunState;
  transition: boolean;
  version: number;
  email: string | null;
  public_reply_sent_at: Date | null;
  dm_sent_at: Date | null;
  button_tapped_at: Date | null;
  gated_at: Date | null;
  gate_passed_at: Date | null;
  email_asked_at: Date | null;
  email_retry_at: Date | null;
  email_captured_at: Date | null;
  email_expired_at: Date | null;
  link_sent_at: Date | null;
  clicked_at: Date | null;
  click_count: number;
  followed_up_at: Date | null;
  /** The person read the opening DM (messaging_seen) while the run waited for the tap. */
  read_at?: Date | null;
  /** The link went out by the read-but-not-tapped fallback. */
  read_fallback_at: Date | null;
  /** A person of the account answered the conversation by hand while the run was going (human takeover). */
  taken_over_at?: Date | null;
  /** The opening/gate button template was refused and sent as text: a text message counts as the tap. */
  text_fallback: boolean;
}
