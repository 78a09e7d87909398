import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import type { EventEntity } from './entities/event.entity';
import { EventsRepository, type NewEvent } from './events.repository';

/** Largest id of a `bigserial` column (PostgreSQL int8). */
const MAX_BIGINT = 9_223_372_036_854_775_807n;
import type { EventDto, EventPageDto, ListEventsQueryDto } from './dto/event.dto';

/** The activity log: what happened, newest first. Part 2's engine writes most entries. */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  /** Writes the Event; inside a transaction, with it. */
  record(accountId: number, event: NewEvent): Promise<void> {
    return this.events.insert(accountId, event);
  }

  async list(accountId: number, q: ListEventsQueryDto): Promise<EventPageDto> {
    let beforeId: string | undefined;
    if (q.cursor) {
      beforeId = Buffer.from(q.cursor, 'base64url').toString('utf8');
      if (!/^\d{1,19}$/.test(beforeId) || BigInt(beforeId) < 1n || BigInt(beforeId) > MAX_BIGINT) throw new ApiError(400, 'VALIDATION_ERROR', 'cursor is invalid: pass next_cursor of the previous page');
    }
    const limit = q.limit ?? 50;
    const rows = await this.events.list(accountId, { kind: q.kind, automation_id: q.automation_id, before_id: beforeId, limit });
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? Buffer.from(page[page.length - 1].id).toString('base64url') : null;
    return { data: page.map(toEventDto), next_cursor: next };
  }
}

export function toEventDto(e: EventEntity): EventDto {
  return {
    id: Number(e.id),
    created_at: e.created_at.toISOString(),
    kind: e.kind,
    username: e.username,
    automation_id: e.automation_id,
    run_id: e.run_id === null ? null : Number(e.run_id),
    text: e.text,
    ref: e.ref,
  };
}
