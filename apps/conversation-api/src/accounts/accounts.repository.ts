import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';

export interface Account {
  id: string;
  name: string;
  createdAt: Date;
}

@Injectable()
export class AccountsRepository {
  constructor(private readonly db: Database) {}

  async insert(name: string): Promise<Account> {
    const row = await this.db.one<{ id: string; name: string; created_at: Date }>(
      `INSERT INTO ${this.db.table('accounts')} (name) VALUES ($1) RETURNING id, name, created_at`,
      [name],
    );
    return { id: row!.id, name: row!.name, createdAt: row!.created_at };
  }

  async find(id: string): Promise<Account | null> {
    const row = await this.db.one<{ id: string; name: string; created_at: Date }>(`SELECT id, name, created_at FROM ${this.db.table('accounts')} WHERE id = $1`, [id]);
    return row ? { id: row.id, name: row.name, createdAt: row.created_at } : null;
  }

  /** The next per-account conversation number (`display_id`), atomically. */
  async nextDisplayId(accountId: string): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `UPDATE ${this.db.table('accounts')} SET last_display_id = last_display_id + 1 WHERE id = $1 RETURNING last_display_id AS n`,
      [accountId],
    );
    return row!.n;
  }
}
