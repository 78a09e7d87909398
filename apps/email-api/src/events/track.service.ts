import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { Transactions } from '@platform/database';
import { EmailEventTracked, Outbox } from '@platform/messaging';
import { SERVICE_NAME } from '@platform/platform';
import { randomUUID } from 'node:crypto';
import { newId } from '../common/ids';
import { dataPatch, normalizeEmail } from '../contacts/contact';
import { SubscriptionEvents } from '../contacts/subscription-events';
import { isReservedEventName, splitTrackData } from './event';
import { EventsRepository } from './events.repository';
import { TrackRepository, type TrackWrite } from './track.repository';

export interface TrackInput {
  email: string;
  event: string;
  subscribed?: boolean;
  data?: Record<string, unknown>;
}

export interface TrackResult {
  contact: { id: string; email: string; subscribed: boolean };
  contactCreated: boolean;
  eventId: string;
  timestamp: Date;
}

/** Length of the outbox's `correlation_id` column (a longer id is cut, never fails the write). */
const MAX_CORRELATION_ID = 200;

/**
 * POST /v1/track and everything else that records an event: the contact is created (subscribed
 * unless told otherwise) or updated, the event stored, and `email.event_tracked` enqueued in the
 * outbox of the same transaction, so consumers of the event bus see exactly the events that committed.
 * Contact, event and outbox row are one statement (TrackRepository); a change of subscription adds
 * the `contact.subscribed|unsubscribed` event in the same transaction.
 */
@Injectable()
export class TrackService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly writes: TrackRepository,
    private readonly events: EventsRepository,
    private readonly outbox: Outbox,
    private readonly subscriptions: SubscriptionEvents,
    @Inject(SERVICE_NAME) private readonly serviceName: string,
  ) {}

  onModuleInit(): void {
    this.subscriptions.listen(async (projectId, contact, subscribed, correlationId) => {
      await this.recordSystemEvent(projectId, contact, subscribed ? 'contact.subscribed' : 'contact.unsubscribed', null, correlationId);
    });
  }

  /**
   * Tracks in the open transaction, or else in one of its own. Without `subscribed` the
   * subscription cannot change, so the single statement is the whole write (alone: one round trip,
   * one commit); with it, a change must also record `contact.subscribed|unsubscribed`, in the same
   * transaction.
   */
  async track(projectId: string, input: TrackInput, correlationId?: string): Promise<TrackResult> {
    if (input.subscribed === undefined) return this.save(projectId, input, correlationId);
    return this.transactions.transaction(() => this.save(projectId, input, correlationId));
  }

  private async save(projectId: string, input: TrackInput, correlationId: string | undefined): Promise<TrackResult> {
    const write = this.prepare(projectId, input, correlationId);
    const row = await this.writes.track(write);
    const contact = { id: row.contactId, email: row.email, subscribed: row.subscribed };
    if (row.previousSubscribed !== null && row.previousSubscribed !== row.subscribed) {
      await this.subscriptions.changed(projectId, contact, row.subscribed, correlationId);
    }
    return { contact, contactCreated: row.contactCreated, eventId: write.eventId, timestamp: row.createdAt };
  }

  /** Checks the name and builds the write: contact patch, event properties, the bus event's envelope. */
  private prepare(projectId: string, input: TrackInput, correlationId: string | undefined): TrackWrite {
    if (isReservedEventName(input.event)) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: [{ field: 'event', message: `"${input.event}" is reserved for events the platform records itself`, code: 'reserved_name' }],
        suggestion: 'Choose another event name: names starting with "email.", "contact.subscribed", "contact.unsubscribed" and "segment.<slug>.entry|exit" are reserved.',
      });
    }
    const split = splitTrackData(input.data);
    return {
      projectId,
      email: normalizeEmail(input.email),
      newContactId: newId('cnt'),
      subscribed: input.subscribed,
      patch: dataPatch(split.contact),
      eventId: newId('evt'),
      name: input.event,
      properties: Object.keys(split.event).length ? split.event : null,
      envelope: {
        id: randomUUID(),
        type: EmailEventTracked.type,
        source: this.serviceName,
        occurredAt: new Date(),
        correlationId: correlationId ? correlationId.slice(0, MAX_CORRELATION_ID) : null,
      },
    };
  }

  /** Records an event the platform produces itself (reserved names), and publishes it. */
  async recordSystemEvent(
    projectId: string,
    contact: { id: string; email: string },
    name: string,
    data: Record<string, unknown> | null,
    correlationId?: string,
  ): Promise<string> {
    return this.transactions.transaction(async () => {
      const event = await this.events.insert(projectId, contact.id, name, data);
      await this.publish(projectId, contact, event.id, name, data, false, correlationId);
      return event.id;
    });
  }

  private async publish(
    projectId: string,
    contact: { id: string; email: string },
    eventId: string,
    name: string,
    properties: Record<string, unknown> | null,
    contactCreated: boolean,
    correlationId?: string,
  ): Promise<void> {
    await this.outbox.enqueue(
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
