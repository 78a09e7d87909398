import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { EventEntity } from './entities/event.entity';

export interface NewEvent {
  kind: string;
  username?: string | null;
  automation_id?: number | null;
  run_id?: string | number | null;
  text?: string | null;
  ref?: string | null;
}

export interface EventQuery {
  kind?: string;
  automation_id?: number;
  /** Return events with id below this one (cursor). */
  before_id?: string;
  limit: number;
}

@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  /** Joins the open transaction, if any (an Event is written with the change it records). */
  async insert(accountId: number, e: NewEvent): Promise<void> {
    await this.db.repository(EventEntity).insert({
      account_id: accountId,
      kind: e.kind,
      username: e.username ?? null,
      automation_id: e.automation_id ?? null,
      run_id: e.run_id === undefined || e.run_id === null ? null : String(e.run_id),
      text: e.text ?? null,
      ref: e.ref ?? null,
    });
  }

  /** Newest first; one row more than `limit` tells whether a next page exists. */
  list(accountId: number, q: EventQuery): Promise<EventEntity[]> {
    const qb = this.db
      .repository(EventEntity)
      .createQueryBuilder('e')
      .where('e.account_id = :accountId', { accountId })
      .orderBy('e.id', 'DESC')
      .limit(q.limit + 1);
    if (q.kind) qb.andWhere('e.kind = :kind', { kind: q.kind });
    if (q.automation_id !== undefined) qb.andWhere('e.automation_id = :automationId', { automationId: q.automation_id });
    if (q.before_id) qb.andWhere('e.id < :beforeId', { beforeId: q.before_id });
    return qb.getMany();
  }
}
