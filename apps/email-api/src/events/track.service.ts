import { Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { EmailEventTracked, Outbox } from '@platform/messaging';
import type { EntityManager } from 'typeorm';
import { dataPatch, normalizeEmail, type Contact } from '../contacts/contact';
import { ContactsRepository } from '../contacts/contacts.repository';
import { SubscriptionEvents } from '../contacts/subscription-events';
import { isReservedEventName, splitTrackData } from './event';
import { EventsRepository } from './events.repository';

export interface TrackInput {
  email: string;
  event: string;
  subscribed?: boolean;
  data?: Record<string, unknown>;
}

export interface TrackResult {
  contact: Contact;
  contactCreated: boolean;
  eventId: string;
  timestamp: Date;
}

/**
 * POST /v1/track and everything else that records an event: the contact is created (subscribed
 * unless told otherwise) or updated, the event stored, and `email.event_tracked` enqueued in the
 * outbox of the same transaction, so the workflow engine sees exactly the events that committed.
 */
@Injectable()
export class TrackService implements OnModuleInit {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly events: EventsRepository,
    private readonly outbox: Outbox,
    private readonly subscriptions: SubscriptionEvents,
  ) {}

  onModuleInit(): void {
    this.subscriptions.listen(async (m, projectId, contact, subscribed, correlationId) => {
      await this.recordSystemEvent(m, projectId, contact, subscribed ? 'contact.subscribed' : 'contact.unsubscribed', null, correlationId);
    });
  }

  async track(m: EntityManager, projectId: string, input: TrackInput, correlationId?: string): Promise<TrackResult> {
    if (isReservedEventName(input.event)) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: 'event', message: `"${input.event}" is reserved for events the platform records itself`, code: 'reserved_name' }],
        suggestion: 'Choose another event name: names starting with "email.", "contact.subscribed", "contact.unsubscribed" and "segment.<slug>.entry|exit" are reserved.',
      });
    }
    const split = splitTrackData(input.data);
    const upsert = await this.contacts.upsert(m, projectId, normalizeEmail(input.email), input.subscribed, true, dataPatch(split.contact));
    const event = await this.events.insert(m, projectId, upsert.contact.id, input.event, split.event);
    await this.publish(m, projectId, upsert.contact, event.id, input.event, split.event, upsert.isNew, correlationId);
    if (upsert.previousSubscribed !== null && upsert.previousSubscribed !== upsert.contact.subscribed) {
      await this.subscriptions.changed(m, projectId, upsert.contact, upsert.contact.subscribed, correlationId);
    }
    return { contact: upsert.contact, contactCreated: upsert.isNew, eventId: event.id, timestamp: event.createdAt };
  }

  /** Records an event the platform produces itself (reserved names), and publishes it. */
  async recordSystemEvent(
    m: EntityManager,
    projectId: string,
    contact: { id: string; email: string },
    name: string,
    data: Record<string, unknown> | null,
    correlationId?: string,
  ): Promise<string> {
    const event = await this.events.insert(m, projectId, contact.id, name, data);
    await this.publish(m, projectId, contact, event.id, name, data, false, correlationId);
    return event.id;
  }

  private async publish(
    m: EntityManager,
    projectId: string,
    contact: { id: string; email: string },
    eventId: string,
    name: string,
    properties: Record<string, unknown> | null,
    contactCreated: boolean,
    correlationId?: string,
  ): Promise<void> {
    await this.outbox.enqueue(
      m,
      EmailEventTracked,
      {
        projectId,
        contactId: contact.id,
        email: contact.email,
        event: name,
        eventId,
        properties: properties && Object.keys(properties).length ? properties : null,
        contactCreated,
      },
      correlationId ? { correlationId } : undefined,
    );
  }
}
