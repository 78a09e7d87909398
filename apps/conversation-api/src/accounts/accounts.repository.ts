import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { BusinessHours } from './business-hours';

export interface Account {
  id: string;
  name: string;
  createdAt: Date;
}

/** What recipes need of an account: its time zone, business hours and out-of-office reply. */
export interface AccountSettings {
  id: string;
  name: string;
  timeZone: string;
  businessHours: BusinessHours | null;
  outOfOffice: { enabled: boolean; message: string | null };
  updatedAt: Date;
}

interface SettingsRow {
  id: string;
  name: string;
  time_zone: string;
  business_hours: BusinessHours | null;
  out_of_office_enabled: boolean;
  out_of_office_message: string | null;
  updated_at: Date;
}

const toSettings = (r: SettingsRow): AccountSettings => ({
  id: r.id,
  name: r.name,
  timeZone: r.time_zone,
  businessHours: r.business_hours,
  outOfOffice: { enabled: r.out_of_office_enabled, message: r.out_of_office_message },
  updatedAt: r.updated_at,
});

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

  /** The next `n` display ids of the account's conversations, in order. */
  async nextDisplayIds(accountId: string, n: number): Promise<number[]> {
    const row = await this.db.one<{ last: number }>(`UPDATE ${this.db.table('accounts')} SET last_display_id = last_display_id + $2 WHERE id = $1 RETURNING last_display_id AS last`, [accountId, n]);
    return Array.from({ length: n }, (_v, i) => row!.last - n + 1 + i);
  }

  async settings(id: string): Promise<AccountSettings | null> {
    const row = await this.db.one<SettingsRow>(
      `SELECT id, name, time_zone, business_hours, out_of_office_enabled, out_of_office_message, updated_at FROM ${this.db.table('accounts')} WHERE id = $1`,
      [id],
    );
    return row ? toSettings(row) : null;
  }

  /** Sets what `patch` holds (undefined keeps; `businessHours: null` removes the hours). */
  async updateSettings(
    id: string,
    patch: { name?: string; timeZone?: string; businessHours?: BusinessHours | null; outOfOfficeEnabled?: boolean; outOfOfficeMessage?: string | null },
  ): Promise<AccountSettings | null> {
    const row = await this.db.one<SettingsRow>(
      `UPDATE ${this.db.table('accounts')}
          SET name = COALESCE($2, name), time_zone = COALESCE($3, time_zone),
              business_hours = CASE WHEN $4::boolean THEN $5::jsonb ELSE business_hours END,
              out_of_office_enabled = COALESCE($6, out_of_office_enabled),
              out_of_office_message = CASE WHEN $7::boolean THEN $8 ELSE out_of_office_message END,
              updated_at = now()
        WHERE id = $1
        RETURNING id, name, time_zone, business_hours, out_of_office_enabled, out_of_office_message, updated_at`,
      [
        id,
        patch.name ?? null,
        patch.timeZone ?? null,
        patch.businessHours !== undefined,
        patch.businessHours ? JSON.stringify(patch.businessHours) : null,
        patch.outOfOfficeEnabled ?? null,
        patch.outOfOfficeMessage !== undefined,
        patch.outOfOfficeMessage ?? null,
      ],
    );
    return row ? toSettings(row) : null;
  }
}
