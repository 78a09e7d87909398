import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Activity log entry (the Event resource). `id` is bigserial, read as a number. */
@Entity({ name: 'events' })
export class EventEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'int' })
  account_id: number;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @Column({ type: 'text' })
  kind: string;

  @Column({ type: 'text', nullable: true })
  username: string | null;

  @Column({ type: 'int', nullable: true })
  automation_id: number | null;

  @Column({ type: 'bigint', nullable: true })
  run_id: string | null;

  @Column({ type: 'text', nullable: true })
  text: string | null;

  @Column({ type: 'text', nullable: true })
  ref: string | null;
}
