import { References } from '../usage/references.service';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError, type FieldError } from '@platform/errors';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { decodeCursor, toPage, type CursorPage } from '../common/pagination';
import { RESERVED_DATA_KEYS, STANDARD_FIELDS, dataPatch, normalizeEmail, type Contact, type DataPatch } from './contact';
import { ContactsRepository } from './contacts.repository';
import { SubscriptionEvents } from './subscription-events';

export const contactNotFound = () =>
  new ApiError(404, 'CONTACT_NOT_FOUND', 'Contact not found', {
    suggestion: 'Check the contact id (cnt_…); list contacts with GET /contacts or look emails up with POST /contacts/lookup.',
  });

export interface FieldInfo {
  field: string;
  /** `email`, `subscribed`… for standard fields, `data.<key>` for custom ones (the path segments and workflows use). */
  path: string;
  standard: boolean;
  /** string, number, boolean, date, array or object; the most frequent type of the stored values. */
  type: string;
  /** Values per JSON type (custom fields). */
  types?: Record<string, number>;
  count: number;
  /** Share of contacts holding the field, in percent with one decimal. */
  coverage: number;
}

/** Throws 422 when a `data` object uses a reserved or overlong key. */
export function assertDataKeys(data: Record<string, unknown> | undefined, prefix = 'data'): void {
  const errors: FieldError[] = [];
  for (const key of Object.keys(data ?? {})) {
    if (RESERVED_DATA_KEYS.has(key)) errors.push({ field: `${prefix}.${key}`, message: `"${key}" is a standard field, not a custom one`, code: 'reserved_key' });
    else if (key.length === 0 || key.length > 100) errors.push({ field: `${prefix}.${key}`, message: 'keys must have 1 to 100 characters', code: 'invalid_key' });
  }
  if (errors.length) throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors, suggestion: 'Rename or remove the fields listed in error.errors.' });
}

/** Accepts `plan` or `data.plan`; standard fields are refused. */
export function customFieldName(field: string): string {
  const name = field.startsWith('data.') ? field.slice(5) : field;
  if (!name || STANDARD_FIELDS.some((f) => f.field === name)) {
    throw new ApiError(400, 'STANDARD_FIELD', `"${field}" is a standard field`, {
      suggestion: 'Only custom fields (data.<key>) have values, usage and can be deleted; standard fields always exist.',
    });
  }
  return name;
}

@Injectable()
export class ContactsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly contacts: ContactsRepository,
    private readonly subscriptions: SubscriptionEvents,
    private readonly references: References,
  ) {}

  async list(projectId: string, query: { limit?: number; cursor?: string; search?: string }): Promise<CursorPage<Contact>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const search = query.search?.trim() || undefined;
    const [rows, total] = await Promise.all([
      this.contacts.page(projectId, limit, after, search),
      after ? Promise.resolve(null) : this.contacts.count(projectId, search),
    ]);
    return toPage(rows, limit, total);
  }

  async get(projectId: string, id: string): Promise<Contact> {
    const contact = await this.contacts.findById(projectId, id);
    if (!contact) throw contactNotFound();
    return contact;
  }

  async upsert(
    projectId: string,
    input: { email: string; subscribed?: boolean; confirmed?: boolean; data?: Record<string, unknown> },
    correlationId?: string,
  ): Promise<{ contact: Contact; isNew: boolean }> {
    assertDataKeys(input.data);
    return this.transactions.transaction(() =>
      this.record(
        projectId,
        normalizeEmail(input.email),
        // `confirmed: true` attests a consent given elsewhere: it subscribes (unless `subscribed: false` says otherwise)
        { subscribed: input.subscribed ?? (input.confirmed ? true : undefined), defaultSubscribed: true, patch: dataPatch(input.data), confirmed: input.confirmed === true && input.subscribed !== false },
        correlationId,
      ),
    );
  }

  /**
   * Creates the contact or updates it by email (`subscribed` changes only when given; new contacts
   * get `defaultSubscribed`; `patch` merges into `data`) and records a change of subscription
   * (`contact.subscribed|unsubscribed`), in the open transaction. The email must be normalized.
   * In a project with double opt-in a signup (a new contact that is to be subscribed, or
   * `subscribed: true` for an unsubscribed one) makes the contact `pending` and asks for a
   * confirmation mail (at most one a day, queued by the opt-in feature's worker) unless `confirmed`
   * attests a consent given elsewhere.
   */
  async record(
    projectId: string,
    email: string,
    change: { subscribed?: boolean; defaultSubscribed: boolean; patch?: DataPatch; confirmed?: boolean },
    correlationId?: string,
  ): Promise<{ contact: Contact; isNew: boolean }> {
    const result = await this.contacts.upsert(projectId, email, change.subscribed, change.defaultSubscribed, change.patch ?? { set: {}, unset: [] }, change.confirmed ?? false);
    if (result.previousSubscribed !== null && result.previousSubscribed !== result.contact.subscribed) {
      await this.subscriptions.changed(projectId, result.contact, result.contact.subscribed, correlationId);
    }
    return { contact: result.contact, isNew: result.isNew };
  }

  /** Sets `subscribed` on the contacts and records each change, in the open transaction; answers the contacts that changed. */
  async setSubscribed(projectId: string, ids: string[], subscribed: boolean, correlationId?: string): Promise<Array<{ id: string; email: string }>> {
    const changed = await this.contacts.setSubscribed(projectId, ids, subscribed);
    for (const contact of changed) await this.subscriptions.changed(projectId, contact, subscribed, correlationId);
    return changed;
  }

  /**
   * Confirms the contact's pending double opt-in, in the open transaction or one of its own: it becomes
   * subscribed (recording `contact.subscribed`, which also lifts an `unsubscribe` suppression).
   * Answers the contact and whether this call confirmed it; null when the contact does not exist.
   */
  confirmOptIn(projectId: string, id: string, correlationId?: string): Promise<{ contact: Contact; confirmed: boolean } | null> {
    return this.transactions.transaction(async () => {
      const confirmed = await this.contacts.confirmOptIn(projectId, id);
      if (confirmed) {
        await this.subscriptions.changed(projectId, confirmed, true, correlationId);
        return { contact: confirmed, confirmed: true };
      }
      const contact = await this.contacts.findById(projectId, id);
      return contact ? { contact, confirmed: false } : null;
    });
  }

  /**
   * Contacts whose confirmation mail is due (up to `limit`), taken in the open transaction: the mail
   * must be queued in the same transaction (see ContactsRepository.takeDueConfirmations).
   */
  takeDueConfirmations(limit: number): Promise<Array<Contact & { projectId: string; pending: boolean }>> {
    return this.contacts.takeDueConfirmations(limit);
  }

  /** The contact with this (normalized) email, or null. */
  findByEmail(projectId: string, email: string): Promise<Contact | null> {
    return this.contacts.findByEmail(projectId, email);
  }

  /** The contacts of the project among these (normalized) emails, ordered by email. */
  findByEmails(projectId: string, emails: string[]): Promise<Array<Pick<Contact, 'id' | 'email' | 'subscribed'>>> {
    return this.contacts.findByEmails(projectId, emails);
  }

  /** A contact by id in any project, with its project (unsubscribe links carry only the contact id). */
  findAnyById(id: string): Promise<(Contact & { projectId: string }) | null> {
    return this.contacts.findAnyById(id);
  }

  async update(
    projectId: string,
    id: string,
    input: { email?: string; subscribed?: boolean; data?: Record<string, unknown> },
    correlationId?: string,
  ): Promise<Contact> {
    assertDataKeys(input.data);
    return this.transactions.transaction(async () => {
      const result = await this.contacts.update(projectId, id, {
        email: input.email ? normalizeEmail(input.email) : undefined,
        subscribed: input.subscribed,
        patch: dataPatch(input.data),
      });
      if (result === null) throw contactNotFound();
      if (result === 'email-taken') {
        throw new ApiError(409, 'CONTACT_EMAIL_TAKEN', 'Another contact of this project already has this email', {
          suggestion: 'Update or delete the other contact first (POST /contacts/lookup finds it).',
        });
      }
      if (result.previousSubscribed !== result.contact.subscribed) {
        await this.subscriptions.changed(projectId, result.contact, result.contact.subscribed, correlationId);
      }
      return result.contact;
    });
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!(await this.contacts.delete(projectId, id))) throw contactNotFound();
  }

  async lookup(projectId: string, emails: string[]): Promise<{ found: Array<Pick<Contact, 'id' | 'email' | 'subscribed'>>; notFound: string[] }> {
    const unique = [...new Set(emails.map(normalizeEmail))];
    const found = await this.contacts.findByEmails(projectId, unique);
    const known = new Set(found.map((c) => c.email));
    return { found, notFound: unique.filter((e) => !known.has(e)) };
  }

  async fields(projectId: string): Promise<{ totalContacts: number; fields: FieldInfo[] }> {
    const [total, stats] = await Promise.all([this.contacts.count(projectId), this.contacts.fieldStats(projectId)]);
    const coverage = (n: number) => (total ? Math.round((n * 1000) / total) / 10 : 0);
    const standard: FieldInfo[] = STANDARD_FIELDS.map((f) => ({ field: f.field, path: f.field, standard: true, type: f.type, count: total, coverage: total ? 100 : 0 }));
    const byField = new Map<string, { types: Record<string, number>; count: number; dates: number }>();
    for (const s of stats) {
      const entry = byField.get(s.field) ?? { types: {}, count: 0, dates: 0 };
      entry.types[s.type] = s.count;
      entry.count += s.count;
      entry.dates += s.dates;
      byField.set(s.field, entry);
    }
    const custom: FieldInfo[] = [...byField.entries()]
      .map(([field, e]) => {
        const dominant = Object.entries(e.types).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0];
        const type = dominant === 'string' && e.dates === e.types['string'] ? 'date' : dominant;
        return { field, path: `data.${field}`, standard: false, type, types: e.types, count: e.count, coverage: coverage(e.count) };
      })
      .sort((a, b) => b.count - a.count || a.field.localeCompare(b.field));
    return { totalContacts: total, fields: [...standard, ...custom] };
  }

  async fieldValues(projectId: string, field: string, limit = 100): Promise<{ field: string; values: Array<{ value: unknown; count: number }> }> {
    const name = customFieldName(field);
    return { field: name, values: await this.contacts.fieldValues(projectId, name, limit) };
  }

  /**
   * Where a custom field is used: the contacts holding it, and the segment conditions, template
   * subjects and bodies, campaign subjects, bodies and audience conditions that reference it.
   */
  async fieldUsage(projectId: string, field: string) {
    const name = customFieldName(field);
    const [contacts, references] = await Promise.all([this.contacts.countWithField(projectId, name), this.references.find(projectId, { kind: 'field', name })]);
    const referenced = Object.values(references).some((list) => list.length > 0);
    return { field: name, contacts, inUse: contacts > 0 || referenced, references };
  }

  async deleteField(projectId: string, field: string): Promise<{ field: string; contactsUpdated: number }> {
    const name = customFieldName(field);
    return { field: name, contactsUpdated: await this.contacts.deleteField(projectId, name) };
  }
}
