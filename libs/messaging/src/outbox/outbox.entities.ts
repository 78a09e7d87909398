import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** A row of `<schema>.outbox`: an event written in the producer's transaction, published by the relay. */
@Entity({ name: 'outbox' })
export class OutboxMessage {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'event_id', type: 'uuid', unique: true })
  eventId: string;

  @Column({ type: 'varchar', length: 200 })
  type: string;

  @Column({ type: 'varchar', length: 100 })
  source: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  @Column({ name: 'correlation_id', type: 'varchar', length: 200, nullable: true })
  correlationId: string | null;

  @Column({ type: 'jsonb' })
  data: unknown;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  /** Lease of the relay that is publishing the row, or the earliest next attempt after a failure. */
  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;
}

/** A row of `<schema>.processed_events`: this consumer has handled this event id (Inbox). */
@Entity({ name: 'processed_events' })
export class ProcessedEvent {
  @PrimaryColumn({ type: 'varchar', length: 200 })
  consumer: string;

  @PrimaryColumn({ name: 'event_id', type: 'varchar', length: 200 })
  eventId: string;

  @Column({ name: 'processed_at', type: 'timestamptz', default: () => 'now()' })
  processedAt: Date;
}

/** Add to the app's `DatabaseModule.forRoot({ entities: [...yours, ...messagingEntities] })`. */
export const messagingEntities: Array<new () => object> = [OutboxMessage, ProcessedEvent];
