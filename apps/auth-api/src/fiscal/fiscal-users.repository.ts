import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Repository } from 'typeorm';
import { FiscalUser } from './entities/fiscal-user.entity';

/** What an insert created (the row as stored: email lower-cased, id and time from the database). */
export interface CreatedFiscalUser {
  id: number;
  email: string;
  role: string;
  createdAt: Date;
}

export interface NewFiscalUser {
  email: string;
  passwordHash: string;
  role: string;
  fullName: string | null;
}

@Injectable()
export class FiscalUsersRepository {
  constructor(private readonly db: Database) {}

  /** The table's repository, in the open transaction if there is one. */
  private get users(): Repository<FiscalUser> {
    return this.db.repository(FiscalUser);
  }

  findByEmail(email: string): Promise<FiscalUser | null> {
    return this.users.findOne({ where: { email: email.trim().toLowerCase() } });
  }

  /**
   * Inserts the user unless one with this email exists (`ON CONFLICT DO NOTHING`, safe when
   * replicas start at once). Returns the created row, or null when the email was taken.
   */
  async insertIfMissing(user: NewFiscalUser): Promise<CreatedFiscalUser | null> {
    const result = await this.users
      .createQueryBuilder()
      .insert()
      .values({ ...user, email: user.email.trim().toLowerCase(), isActive: true })
      .orIgnore()
      .returning('id, email, role, created_at')
      .execute();
    const row = (result.raw as Array<{ id: number; email: string; role: string; created_at: Date }>)[0];
    return row ? { id: Number(row.id), email: row.email, role: row.role, createdAt: new Date(row.created_at) } : null;
  }

  async setActive(email: string, isActive: boolean): Promise<void> {
    await this.users.update({ email: email.trim().toLowerCase() }, { isActive });
  }
}
