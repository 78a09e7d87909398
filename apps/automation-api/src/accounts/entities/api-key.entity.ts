import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** An API key of an account, stored as its SHA-256 hex digest only. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @Column({ type: 'int' })
  account_id: number;

  @Column({ type: 'text', unique: true })
  key_hash: string;

  /** First characters of the key, to recognise it in listings. */
  @Column({ type: 'text' })
  key_prefix: string;

  @Column({ type: 'text', nullable: true })
  label: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @Column({ type: 'timestamptz', nullable: true })
  last_used_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revoked_at: Date | null;
}
