import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { MatchMode } from '../../matching/keyword-matcher';

export const TRIGGERS = ['comment', 'dm', 'story_reply'] as const;
export type Trigger = (typeof TRIGGERS)[number];
export const AUTOMATION_STATUSES = ['draft', 'active', 'paused'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];
export const REEL_STATUSES = ['waiting', 'attached', 'expired'] as const;
export type ReelStatus = (typeof REEL_STATUSES)[number];
export const ORIGINS = ['import', 'auto'] as const;
export type Origin = (typeof ORIGINS)[number];

export interface ExtraLink {
  title: string;
  url: string;
}

export interface ReelSuggestion {
  media_id: string;
  permalink: string | null;
  reason: string;
  at: string;
}

/** A rule: keywords → public reply, DMs, gates, link, reminder, webhook. Field names are the spec's. */
@Entity({ name: 'automations' })
export class AutomationEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  account_id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: 'draft' })
  status: AutomationStatus;

  @Column({ type: 'boolean', default: true })
  active: boolean;

  @Column({ type: 'text' })
  trigger: Trigger;

  @Column({ type: 'jsonb', nullable: true })
  media_ids: string[] | null;

  @Column({ type: 'boolean', default: false })
  next_post: boolean;

  @Column({ type: 'text', nullable: true })
  reel_caption: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  reel_publish_at: Date | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  keywords: string[];

  @Column({ type: 'text', default: 'word' })
  match_mode: MatchMode;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  exclude_keywords: string[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  public_replies: string[];

  @Column({ type: 'text' })
  opening_text: string;

  @Column({ type: 'text', nullable: true })
  opening_button: string | null;

  @Column({ type: 'boolean', default: false })
  follow_gate: boolean;

  @Column({ type: 'text' })
  gate_text: string;

  @Column({ type: 'text' })
  gate_button: string;

  @Column({ type: 'text', nullable: true })
  link_url: string | null;

  @Column({ type: 'text' })
  link_text: string;

  @Column({ type: 'text' })
  link_button: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  extra_links: ExtraLink[];

  @Column({ type: 'text', nullable: true })
  follow_up_text: string | null;

  @Column({ type: 'int', default: 0 })
  follow_up_minutes: number;

  @Column({ type: 'boolean', default: false })
  email_gate: boolean;

  @Column({ type: 'text' })
  email_text: string;

  @Column({ type: 'text' })
  email_retry_text: string;

  @Column({ type: 'boolean', default: true })
  email_skip_if_known: boolean;

  @Column({ type: 'text', nullable: true })
  webhook_url: string | null;

  @Column({ type: 'text', nullable: true })
  webhook_secret: string | null;

  @Column({ type: 'boolean', default: true })
  track_clicks: boolean;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  tags: string[];

  @Column({ type: 'boolean', default: true })
  once_per_user: boolean;

  @Column({ type: 'int', default: 0 })
  priority: number;

  @Column({ type: 'text', nullable: true })
  notes: string | null;

  @Column({ type: 'boolean', default: true })
  skip_if_answered: boolean;

  /** next_post: waiting for its reel. */
  @Column({ type: 'boolean', default: false })
  pending_next: boolean;

  @Column({ type: 'text', nullable: true })
  reel_status: ReelStatus | null;

  /** The reel it attached itself to (next_post). */
  @Column({ type: 'text', nullable: true })
  reel_media_id: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  reel_attached_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  reel_expired_at: Date | null;

  @Column({ type: 'jsonb', nullable: true })
  reel_suggestion: ReelSuggestion | null;

  /** Imported automations run without follower check, button, email and reminder until finish_migration. */
  @Column({ type: 'boolean', default: false })
  transition_mode: boolean;

  @Column({ type: 'text', nullable: true })
  origin: Origin | null;

  /** Tool an imported automation came from. */
  @Column({ type: 'text', nullable: true })
  imported_from: string | null;

  /** Set by go_live. */
  @Column({ type: 'timestamptz', nullable: true })
  went_live_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
