import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { conflict, notFound } from '../common/errors';
import { AttributeDefinitionsRepository, type StoredAttributeDefinition } from './attribute-definitions.repository';
import { validateAttributes } from './attributes';
import { ContactsRepository, type Contact } from './contacts.repository';
import type { CreateAttributeDefinitionDto, UpdateContactDto } from './dto/contact.dto';

export type { Contact } from './contacts.repository';

@Injectable()
export class ContactsService {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly definitions: AttributeDefinitionsRepository,
  ) {}

  list(accountId: string, q: string | undefined, limit: number, offset: number) {
    return this.contacts.list(accountId, q, limit, offset);
  }

  async get(accountId: string, id: string): Promise<Contact> {
    const contact = await this.contacts.find(accountId, id);
    if (!contact) throw notFound('contact');
    return contact;
  }

  /** The contact behind a channel's sender id (a WhatsApp `wa_id`, an email address), created with `name`, `phone` and `email` when new (email senders: an account contact with that email first). */
  findOrCreateBySource(accountId: string, channelId: string, sourceId: string, profile: { name: string | null; phone?: string | null; email?: string | null }): Promise<{ contact: Contact; created: boolean }> {
    return this.contacts.findOrCreateBySource(accountId, channelId, sourceId, profile);
  }

  /** `findOrCreateBySource` of several senders of one channel at once (distinct ids; senders known by their id alone, not by email): by sender id. */
  findOrCreateManyBySource(accountId: string, channelId: string, senders: Array<{ sourceId: string; name: string | null; phone: string | null }>): Promise<Map<string, { contact: Contact; created: boolean }>> {
    return this.contacts.findOrCreateManyBySource(accountId, channelId, senders.map((s) => ({ ...s, newId: randomUUID() })));
  }

  /** The sender id of the contact on a channel (where replies go), or null. */
  sourceIdOn(contactId: string, channelId: string): Promise<string | null> {
    return this.contacts.sourceIdOn(contactId, channelId);
  }

  /** Sets the name (a profile name arriving with a message), without checks. */
  async rename(accountId: string, id: string, name: string): Promise<void> {
    await this.contacts.update(accountId, id, { name });
  }

  async update(accountId: string, id: string, dto: UpdateContactDto): Promise<Contact> {
    await this.get(accountId, id);
    await this.contacts.update(accountId, id, dto);
    return this.get(accountId, id);
  }

  /** Merges typed custom attributes, each checked against its definition (422 naming every bad key). */
  async updateAttributes(accountId: string, id: string, patch: Record<string, unknown>): Promise<Contact> {
    await this.get(accountId, id);
    const errors = validateAttributes(await this.definitions.list(accountId), patch);
    if (errors.length) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Invalid custom attributes', {
        errors,
        suggestion: 'Use keys defined in GET /api/v1/contacts/attributes with values of their type; define new ones with POST /api/v1/contacts/attributes.',
      });
    }
    await this.contacts.mergeAttributes(accountId, id, patch);
    return this.get(accountId, id);
  }

  listDefinitions(accountId: string): Promise<StoredAttributeDefinition[]> {
    return this.definitions.list(accountId);
  }

  async define(accountId: string, dto: CreateAttributeDefinitionDto): Promise<StoredAttributeDefinition> {
    const values = dto.values ?? [];
    if (dto.type === 'list' && !values.length) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'A list attribute needs its values', { errors: [{ field: 'values', message: 'values must list the allowed values of a list attribute', code: 'required' }] });
    }
    const created = await this.definitions.insert(accountId, { key: dto.key, displayName: dto.display_name, type: dto.type, values: dto.type === 'list' ? values : [] });
    if (!created) throw conflict('ATTRIBUTE_KEY_TAKEN', `The attribute ${dto.key} is defined already`, 'Choose another key.');
    return created;
  }

  async undefine(accountId: string, id: string): Promise<{ deleted: true }> {
    if (!(await this.definitions.delete(accountId, id))) throw notFound('attribute definition', 'ATTRIBUTE_NOT_FOUND');
    return { deleted: true };
  }
}
