import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { MAX_INT4 } from '../common/id.pipe';
import { ContactsRepository } from './contacts.repository';
import type { ContactDto, ContactPageDto, ImportContactDto, ListContactsQueryDto, UpdateContactDto } from './dto/contact.dto';
import type { ContactEntity } from './entities/contact.entity';

@Injectable()
export class ContactsService {
  constructor(private readonly contacts: ContactsRepository) {}

  async list(accountId: number, q: ListContactsQueryDto): Promise<ContactPageDto> {
    let beforeId: number | undefined;
    if (q.cursor) {
      const raw = Buffer.from(q.cursor, 'base64url').toString('utf8');
      beforeId = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
      if (!(beforeId >= 1 && beforeId <= MAX_INT4)) throw new ApiError(400, 'VALIDATION_ERROR', 'cursor is invalid: pass next_cursor of the previous page');
    }
    const limit = q.limit ?? 50;
    const rows = await this.contacts.list(accountId, { search: q.search, tag: q.tag, beforeId, limit });
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? Buffer.from(String(page[page.length - 1].id)).toString('base64url') : null;
    return { data: page.map(toContactDto), next_cursor: next };
  }

  async get(accountId: number, igId: string): Promise<ContactDto> {
    return toContactDto(await this.entity(accountId, igId));
  }

  async update(accountId: number, igId: string, input: UpdateContactDto): Promise<ContactDto> {
    const c = await this.entity(accountId, igId);
    if (input.tags !== undefined) c.tags = [...new Set(input.tags)];
    if (input.notes !== undefined) c.notes = input.notes;
    if (input.email !== undefined) c.email = input.email === null ? null : input.email.trim().toLowerCase();
    return toContactDto(await this.contacts.save(c));
  }

  count(accountId: number): Promise<number> {
    return this.contacts.count(accountId);
  }

  /** The person's contact row, or null (the engine, which never answers 404). */
  find(accountId: number, igId: string): Promise<ContactEntity | null> {
    return this.contacts.find(accountId, igId);
  }

  /** Upserts the person on an inbound (counts, first/last seen, the 24-hour messaging window). */
  /** STOP (`at`) or START (null) from the person. */
  setOptedOut(accountId: number, igId: string, at: Date | null): Promise<void> {
    return this.contacts.setOptedOut(accountId, igId, at);
  }

  /** Human takeover: automation pauses for the person's conversation until `until`. */
  pauseUntil(accountId: number, igId: string, until: Date): Promise<void> {
    return this.contacts.pauseUntil(accountId, igId, until);
  }

  touch(accountId: number, igId: string, username: string | null, kind: 'comment' | 'message' | 'tap', at: Date): Promise<void> {
    return this.contacts.touch(accountId, igId, username, kind, at);
  }

  /** Adds tags (set union); `source` is written when given. */
  tag(accountId: number, igId: string, tags: string[], source?: string): Promise<void> {
    return this.contacts.tag(accountId, igId, tags, source);
  }

  setEmail(accountId: number, igId: string, email: string): Promise<void> {
    return this.contacts.setEmail(accountId, igId, email);
  }

  setFollows(accountId: number, igId: string, follows: boolean | null, username?: string | null): Promise<void> {
    return this.contacts.setFollows(accountId, igId, follows, username);
  }

  /** Imported contacts, inserted or merged; joins the caller's transaction (an import is all or nothing). */
  upsertImported(accountId: number, tool: string, contacts: ImportContactDto[]): Promise<{ created: number; updated: number }> {
    return this.contacts.upsertImported(accountId, tool, contacts);
  }

  private async entity(accountId: number, igId: string): Promise<ContactEntity> {
    const c = await this.contacts.find(accountId, igId);
    if (!c) throw new ApiError(404, 'NOT_FOUND', `Contact ${igId} not found`, { suggestion: 'GET /api/v1/contacts lists the contacts of this account.' });
    return c;
  }
}

export function toContactDto(c: ContactEntity): ContactDto {
  return {
    ig_id: c.ig_id,
    username: c.username,
    name: c.name,
    follows: c.follows,
    tags: c.tags,
    email: c.email,
    notes: c.notes,
    comment_count: c.comment_count,
    dm_count: c.dm_count,
    first_seen_at: c.first_seen_at.toISOString(),
    last_seen_at: c.last_seen_at.toISOString(),
    last_inbound_at: c.last_inbound_at ? c.last_inbound_at.toISOString() : null,
    source: c.source,
    imported_from: c.imported_from,
  };
}
