import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { IsNull } from 'typeorm';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';

export type AccountFields = Partial<Omit<AccountEntity, 'id' | 'created_at' | 'updated_at'>> & { name: string; graph_url: string };

/** What the webhook receiver needs of an account: its id and signature secret by `entry.id`. */
export interface WebhookAccount {
  id: number;
  ig_user_id: string;
  app_secret: string | null;
}

/** Accounts and their API keys. */
@Injectable()
export class AccountsRepository {
  constructor(private readonly db: Database) {}

  private get accounts() {
    return this.db.repository(AccountEntity);
  }

  private get keys() {
    return this.db.repository(ApiKeyEntity);
  }

  /** The account owning an unrevoked key with this SHA-256 digest; stamps last_used_at. */
  async findByKeyHash(keyHash: string): Promise<AccountEntity | null> {
    const key = await this.keys.findOne({ where: { key_hash: keyHash, revoked_at: IsNull() } });
    if (!key) return null;
    // At most one write per key and minute, not one per request.
    if (!key.last_used_at || Date.now() - key.last_used_at.getTime() > 60_000) {
      await this.keys.update({ id: key.id }, { last_used_at: new Date() });
    }
    return this.accounts.findOne({ where: { id: key.account_id } });
  }

  /** False before the migrations ran (for example inside `main.js migrate` on a fresh database). */
  async ready(): Promise<boolean> {
    const row = await this.db.one<{ ready: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ready`, [this.db.table('api_keys')]);
    return row?.ready === true;
  }

  /** Accounts connected to a platform account (a token and its id): the ones the background checks look at. */
  async connectedIds(): Promise<number[]> {
    const rows = await this.db.rows<{ id: number }>(
      `SELECT id FROM ${this.db.table('accounts')} WHERE account_status = 'connected' AND access_token IS NOT NULL AND ig_user_id IS NOT NULL ORDER BY id`,
    );
    return rows.map((r) => r.id);
  }

  findByIgUserId(igUserId: string): Promise<AccountEntity | null> {
    return this.accounts.findOne({ where: { ig_user_id: igUserId } });
  }

  findById(id: number): Promise<AccountEntity | null> {
    return this.accounts.findOne({ where: { id } });
  }

  createWithKey(fields: AccountFields, keyHash: string, keyPrefix: string, label: string): Promise<AccountEntity> {
    return this.db.transaction(async () => {
      const account = await this.accounts.save(this.accounts.create(fields));
      await this.keys.insert({ account_id: account.id, key_hash: keyHash, key_prefix: keyPrefix, label });
      return account;
    });
  }

  /**
   * Creates the account bound to `keyHash`, or updates it when the key exists already (same key,
   * same account, on every start). Serialised with an advisory lock so that replicas starting
   * together create one account.
   */
  upsertByKey(
    fields: AccountFields,
    keyHash: string,
    keyPrefix: string,
    label: string,
    tokenFields: (existing: AccountEntity | null) => Partial<AccountEntity> = () => ({}),
  ): Promise<{ account: AccountEntity; created: boolean }> {
    return this.db.transaction(async () => {
      await this.db.lock('bootstrap-account');
      const key = await this.keys.findOne({ where: { key_hash: keyHash } });
      if (key) {
        const existing = await this.accounts.findOne({ where: { id: key.account_id } });
        await this.accounts.update({ id: key.account_id }, { ...fields, ...tokenFields(existing) });
        if (key.revoked_at) await this.keys.update({ id: key.id }, { revoked_at: null });
        const account = await this.accounts.findOneOrFail({ where: { id: key.account_id } });
        return { account, created: false };
      }
      const account = await this.accounts.save(this.accounts.create({ ...fields, ...tokenFields(null) }));
      await this.keys.insert({ account_id: account.id, key_hash: keyHash, key_prefix: keyPrefix, label });
      return { account, created: true };
    });
  }

  async update(id: number, fields: Partial<AccountEntity>): Promise<void> {
    await this.accounts.update({ id }, fields);
  }

  /**
   * Stores what the scheduler learned or got for the token it worked on: only while the account
   * still holds that token (a restart or a login may have replaced it meanwhile). False: replaced.
   */
  async updateForToken(id: number, token: string, fields: Partial<AccountEntity>): Promise<boolean> {
    // The stored token is encrypted with a random IV: compared after decryption, under a row lock.
    return this.db.transaction(async () => {
      const row = await this.accounts.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!row || (row.access_token ?? '') !== token) return false;
      await this.accounts.update({ id }, fields);
      return true;
    });
  }

  /**
   * Encrypts token columns that still hold plaintext (written before AUTOMATION_TOKEN_KEY was set).
   * Each value is replaced only while it is still the plaintext read (a concurrent write wins).
   * Answers how many values were encrypted.
   */
  async encryptPlaintextTokens(prefix: string, encrypt: (plain: string) => string): Promise<number> {
    const t = this.db.table('accounts');
    const rows = await this.db.rows<{ id: number; column: 'access_token' | 'youtube_refresh_token'; value: string }>(
      `SELECT id, 'access_token' AS column, access_token AS value FROM ${t} WHERE access_token IS NOT NULL AND left(access_token, $2) <> $1
       UNION ALL
       SELECT id, 'youtube_refresh_token', youtube_refresh_token FROM ${t} WHERE youtube_refresh_token IS NOT NULL AND left(youtube_refresh_token, $2) <> $1`,
      [prefix, prefix.length],
    );
    let done = 0;
    for (const r of rows) {
      const column = r.column === 'access_token' ? 'access_token' : 'youtube_refresh_token';
      done += await this.db.affected(`UPDATE ${t} SET ${column} = $2 WHERE id = $1 AND ${column} = $3`, [r.id, encrypt(r.value), r.value]);
    }
    return done;
  }

  /** Counts a failed refresh (or expiry lookup) and keeps its text as the account's problem; the new count. */
  async recordTokenFailure(id: number, problem: string, at: Date, invalid: boolean): Promise<number> {
    const row = await this.db.one<{ attempts: number }>(
      `UPDATE ${this.db.table('accounts')} SET token_refresh_attempts = token_refresh_attempts + 1,
         last_problem = replace($2, '{attempt}', (token_refresh_attempts + 1)::text), last_problem_at = $3,
         account_status = CASE WHEN $4::boolean THEN 'token_invalid' ELSE account_status END
       WHERE id = $1 RETURNING token_refresh_attempts AS attempts`,
      [id, problem, at, invalid],
    );
    return row?.attempts ?? 0;
  }

  /** Accounts by professional account id (webhook `entry.id`). */
  async byIgUserIds(ids: string[]): Promise<WebhookAccount[]> {
    if (ids.length === 0) return [];
    return this.db.rows<WebhookAccount>(`SELECT id, ig_user_id, app_secret FROM ${this.db.table('accounts')} WHERE ig_user_id = ANY($1::text[])`, [ids]);
  }

  /** Whether an account has this webhook verify token. */
  async verifyTokenKnown(token: string): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM ${this.db.table('accounts')} WHERE verify_token = $1 LIMIT 1`, [token])) !== null;
  }

  /**
   * Accounts whose token needs the scheduler, leased on `token_lease_until` so one replica handles
   * each: an expiry not known yet (a token just configured or connected), or a long-lived token that
   * expires within `beforeDays` of `now` and can be refreshed (not expired, at least 24 hours old).
   */
  async claimTokensToRefresh(now: Date, beforeDays: number, leaseSeconds: number, limit = 20): Promise<number[]> {
    const rows = await this.db.claimDue<{ id: number }>({
      table: this.db.table('accounts'),
      where: `access_token IS NOT NULL AND account_status NOT IN ('sandbox','token_invalid')
              AND (token_expires_at IS NULL
                OR (token_expires_at > $1 AND token_expires_at <= $1::timestamptz + make_interval(days => $2::int)
                    AND COALESCE(token_issued_at, token_refreshed_at, '-infinity') <= $1::timestamptz - interval '24 hours'))`,
      params: [now, beforeDays],
      orderBy: 'token_expires_at ASC NULLS FIRST',
      limit,
      lease: { column: 'token_lease_until', seconds: leaseSeconds },
    });
    return rows.map((r) => r.id);
  }
}
