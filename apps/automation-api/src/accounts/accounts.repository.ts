import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { schemaOfDataSource, withTransaction } from '@platform/database';
import { DataSource, IsNull } from 'typeorm';
import { AccountEntity } from './entities/account.entity';
import { ApiKeyEntity } from './entities/api-key.entity';

export type AccountFields = Partial<Omit<AccountEntity, 'id' | 'created_at' | 'updated_at'>> & { name: string; graph_url: string };

@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The account owning an unrevoked key with this SHA-256 digest; stamps last_used_at. */
  async findByKeyHash(keyHash: string): Promise<AccountEntity | null> {
    const key = await this.ds.getRepository(ApiKeyEntity).findOne({ where: { key_hash: keyHash, revoked_at: IsNull() } });
    if (!key) return null;
    // At most one write per key and minute, not one per request.
    if (!key.last_used_at || Date.now() - key.last_used_at.getTime() > 60_000) {
      await this.ds.getRepository(ApiKeyEntity).update({ id: key.id }, { last_used_at: new Date() });
    }
    return this.ds.getRepository(AccountEntity).findOne({ where: { id: key.account_id } });
  }

  /** False before the migrations ran (for example inside `main.js migrate` on a fresh database). */
  async ready(): Promise<boolean> {
    const [row] = await this.ds.query(`SELECT to_regclass($1) IS NOT NULL AS ready`, [`${schemaOfDataSource(this.ds)}.api_keys`]);
    return row?.ready === true;
  }

  findById(id: number): Promise<AccountEntity | null> {
    return this.ds.getRepository(AccountEntity).findOne({ where: { id } });
  }

  async createWithKey(fields: AccountFields, keyHash: string, keyPrefix: string, label: string): Promise<AccountEntity> {
    return withTransaction(this.ds, async (m) => {
      const account = await m.getRepository(AccountEntity).save(m.getRepository(AccountEntity).create(fields));
      await m.getRepository(ApiKeyEntity).insert({ account_id: account.id, key_hash: keyHash, key_prefix: keyPrefix, label });
      return account;
    });
  }

  /**
   * Creates the account bound to `keyHash`, or updates it when the key exists already (same key,
   * same account, on every start). Serialised with an advisory lock so that replicas starting
   * together create one account.
   */
  async upsertByKey(fields: AccountFields, keyHash: string, keyPrefix: string, label: string): Promise<{ account: AccountEntity; created: boolean }> {
    return withTransaction(this.ds, async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('automation-api:bootstrap-account'))`);
      const key = await m.getRepository(ApiKeyEntity).findOne({ where: { key_hash: keyHash } });
      if (key) {
        await m.getRepository(AccountEntity).update({ id: key.account_id }, fields);
        if (key.revoked_at) await m.getRepository(ApiKeyEntity).update({ id: key.id }, { revoked_at: null });
        const account = await m.getRepository(AccountEntity).findOneOrFail({ where: { id: key.account_id } });
        return { account, created: false };
      }
      const account = await m.getRepository(AccountEntity).save(m.getRepository(AccountEntity).create(fields));
      await m.getRepository(ApiKeyEntity).insert({ account_id: account.id, key_hash: keyHash, key_prefix: keyPrefix, label });
      return { account, created: true };
    });
  }

  async update(id: number, fields: Partial<AccountEntity>): Promise<void> {
    await this.ds.getRepository(AccountEntity).update({ id }, fields);
  }
}
