import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/**
 * States of a run (one person going through one automation). Part 2 (the engine) moves runs:
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

@Entity({ name: 'runs' })
export class RunEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'int' })
  account_id: number;

  @Column({ type: 'int' })
  automation_id: number;

  /** Person (contact ig_id). */
  @Column({ type: 'text' })
  contact_ig_id: string;

  @Column({ type: 'text', nullable: true })
  username: string | null;

  @Column({ type: 'text' })
  trigger: string;

  @Column({ type: 'text', nullable: true })
  media_id: string | null;

  @Column({ type: 'text', nullable: true })
  comment_id: string | null;

  /** Incoming message id (dm / story_reply triggers). */
  @Column({ type: 'text', nullable: true })
  message_id: string | null;

  @Column({ type: 'text', nullable: true })
  trigger_text: string | null;

  @Column({ type: 'text', default: 'started' })
  state: RunState;

  /** Ran in transition mode (no follower check, button, email, reminder). */
  @Column({ type: 'boolean', default: false })
  transition: boolean;

  @Column({ type: 'text', nullable: true })
  public_reply_id: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  public_reply_sent_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  dm_sent_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  button_tapped_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  gated_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  gate_passed_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  email_asked_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  email_retry_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  email_captured_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  email_expired_at: Date | null;

  @Column({ type: 'text', nullable: true })
  email: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  link_sent_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  clicked_at: Date | null;

  @Column({ type: 'int', default: 0 })
  click_count: number;

  @Column({ type: 'timestamptz', nullable: true })
  follow_up_due_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  followed_up_at: Date | null;

  /** When the engine should look at the run again (claimDue). */
  @Column({ type: 'timestamptz', nullable: true })
  next_action_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  lease_until: Date | null;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
