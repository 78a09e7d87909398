import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A person who commented, messaged or replied to a story (or was imported). */
@Entity({ name: 'contacts' })
export class ContactEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'int' })
  account_id: number;

  /** Instagram-scoped id of the person. */
  @Column({ type: 'text' })
  ig_id: string;

  @Column({ type: 'text', nullable: true })
  username: string | null;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  /** 1 follows, 0 does not, null unknown. */
  @Column({ type: 'smallint', nullable: true })
  follows: number | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  tags: string[];

  @Column({ type: 'text', nullable: true })
  email: string | null;

  @Column({ type: 'text', nullable: true })
  notes: string | null;

  @Column({ type: 'int', default: 0 })
  comment_count: number;

  @Column({ type: 'int', default: 0 })
  dm_count: number;

  @Column({ type: 'timestamptz' })
  first_seen_at: Date;

  @Column({ type: 'timestamptz' })
  last_seen_at: Date;

  /** Last message or tap from the person: opens the 24-hour messaging window. */
  @Column({ type: 'timestamptz', nullable: true })
  last_inbound_at: Date | null;

  @Column({ type: 'text', nullable: true })
  source: string | null;

  @Column({ type: 'text', nullable: true })
  imported_from: string | null;

  /** The person sent STOP (an opt-out word): no automation starts or goes on for them until START. */
  @Column({ type: 'timestamptz', nullable: true })
  opted_out_at: Date | null;

  /** A person of the account answered this conversation by hand: automation pauses for it until then. */
  @Column({ type: 'timestamptz', nullable: true })
  paused_until: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
