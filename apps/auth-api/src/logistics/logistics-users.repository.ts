import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { Repository } from 'typeorm';
import { LogisticsUser, type LogisticsRole } from './entities/logistics-user.entity';

export interface NewLogisticsUser {
  email: string;
  passwordHash: string;
  role: LogisticsRole;
  fullName: string | null;
}

@Injectable()
export class LogisticsUsersRepository {
  constructor(private readonly db: Database) {}

  /** The table's repository, in the open transaction if there is one. */
  private get users(): Repository<LogisticsUser> {
    return this.db.repository(LogisticsUser);
  }

  findByEmail(email: string): Promise<LogisticsUser | null> {
    return this.users.findOne({ where: { email: email.trim().toLowerCase() } });
  }

  findById(id: string): Promise<LogisticsUser | null> {
    return this.users.findOne({ where: { id } });
  }

  /**
   * Inserts the user unless the email is taken (`ON CONFLICT DO NOTHING`); returns it, or null when
   * taken.
   */
  async insertIfMissing(user: NewLogisticsUser): Promise<LogisticsUser | null> {
    const result = await this.users
      .createQueryBuilder()
      .insert()
      .values({ ...user, email: user.email.trim().toLowerCase(), isActive: true })
      .orIgnore()
      .returning(['id'])
      .execute();
    const id = (result.raw as Array<{ id: string }>)[0]?.id;
    return id ? this.findById(id) : null;
  }

  /** A page of users, oldest first (stable order for paging). */
  async list(page: number, limit: number): Promise<{ items: LogisticsUser[]; total: number }> {
    const [items, total] = await this.users.findAndCount({
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return { items, total };
  }

  async setActive(id: string, isActive: boolean): Promise<void> {
    await this.users.update({ id }, { isActive });
  }
}
