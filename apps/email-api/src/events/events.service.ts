import { References } from '../usage/references.service';
import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { decodeCursor, toPage } from '../common/pagination';
import { ContactsService } from '../contacts/contacts.service';
import { EventsRepository } from './events.repository';

@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly contacts: ContactsService,
    private readonly references: References,
  ) {}

  async recent(projectId: string, query: { limit?: number; cursor?: string; name?: string }) {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const filter = { name: query.name };
    const [rows, total] = await Promise.all([this.events.page(projectId, limit, after, filter), after ? null : this.events.count(projectId, filter)]);
    return toPage(rows, limit, total);
  }

  async ofContact(projectId: string, contactId: string, query: { limit?: number; cursor?: string; name?: string }) {
    await this.contacts.get(projectId, contactId); // 404 CONTACT_NOT_FOUND
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const filter = { contactId, name: query.name };
    const [rows, total] = await Promise.all([this.events.page(projectId, limit, after, filter), after ? null : this.events.count(projectId, filter)]);
    return toPage(rows, limit, total);
  }

  async stats(projectId: string) {
    const [totals, names] = await Promise.all([this.events.stats(projectId), this.events.names(projectId)]);
    return { ...totals, topEvents: names.slice(0, 10).map((n) => ({ name: n.name, count: n.count })) };
  }

  names(projectId: string) {
    return this.events.names(projectId);
  }

  /**
   * Where an event name is used: the events themselves (count, contacts, first and last time) and
   * the segment conditions and campaign audience conditions that reference it (workflow triggers
   * are not listed here yet). 404 when it was never tracked and nothing references it.
   */
  async usage(projectId: string, name: string) {
    const [usage, references] = await Promise.all([this.events.usage(projectId, name), this.references.find(projectId, { kind: 'event', name })]);
    const referenced = Object.values(references).some((list) => list.length > 0);
    if (usage.count === 0 && !referenced) throw eventNotFound(name);
    return { name, ...usage, inUse: usage.count > 0 || referenced, references };
  }

  async deleteByName(projectId: string, name: string): Promise<{ name: string; deleted: number }> {
    const deleted = await this.events.deleteByName(projectId, name);
    if (deleted === 0) throw eventNotFound(name);
    return { name, deleted };
  }
}

const eventNotFound = (name: string) =>
  new ApiError(404, 'EVENT_NOT_FOUND', `No events named "${name}" in this project`, { suggestion: 'List the names in use with GET /events/names.' });
