import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { encryptedColumn } from '../token-cipher';

export const ACCOUNT_STATUSES = ['connected', 'not_connected', 'token_invalid', 'token_expired', 'sandbox'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** One connected business account of the social platform; every other row belongs to one. */
@Entity({ name: 'accounts' })
export class AccountEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text' })
  name: string;

  /** Professional account id (= webhook entry.id). */
  @Column({ type: 'text', nullable: true })
  ig_user_id: string | null;

  @Column({ type: 'text', nullable: true })
  ig_username: string | null;

  /** Graph API base URL with version. */
  @Column({ type: 'text' })
  graph_url: string;

  /** Platform access token; encrypted at rest with AUTOMATION_TOKEN_KEY (token-cipher.ts), plaintext in memory. */
  @Column({ type: 'text', nullable: true, transformer: encryptedColumn })
  access_token: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  token_expires_at: Date | null;

  /** Last refresh done by the service (null: never refreshed here). */
  @Column({ type: 'timestamptz', nullable: true })
  token_refreshed_at: Date | null;

  /** When the stored token was issued (refresh answer or the platform's debug_token); refreshable 24 h later. */
  @Column({ type: 'timestamptz', nullable: true })
  token_issued_at: Date | null;

  /** Failed refresh (or expiry lookup) attempts since the last success. */
  @Column({ type: 'int', default: 0 })
  token_refresh_attempts: number;

  /** Lease of the token scheduler (claimDue): the replica working on this account's token until then. */
  @Column({ type: 'timestamptz', nullable: true })
  token_lease_until: Date | null;

  /** SHA-256 hex of the IG_ACCESS_TOKEN the stored token comes from (the AUTOMATION_API_KEY account). */
  @Column({ type: 'text', nullable: true })
  configured_token_sha256: string | null;

  @Column({ type: 'text', nullable: true })
  app_secret: string | null;

  @Column({ type: 'text', nullable: true })
  verify_token: string | null;

  @Column({ type: 'text', nullable: true })
  email_public_key: string | null;

  @Column({ type: 'text', nullable: true })
  public_base_url: string | null;

  /** OAuth refresh token of the account's YouTube channel (planned posts with a youtube target). */
  @Column({ type: 'text', nullable: true, transformer: encryptedColumn })
  youtube_refresh_token: string | null;

  /** Connection state stored for the account (GET /status `account_status`). */
  @Column({ type: 'text', default: 'not_connected' })
  account_status: AccountStatus;

  /** Last platform error seen for the account, with the time it was recorded. */
  @Column({ type: 'text', nullable: true })
  last_problem: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  last_problem_at: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
