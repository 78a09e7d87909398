import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A contact whose subscription state changed, inside the transaction that changed it. */
export type SubscriptionListener = (
  m: EntityManager,
  projectId: string,
  contact: { id: string; email: string },
  subscribed: boolean,
  correlationId?: string,
) => Promise<void>;

/**
 * Where subscription changes are announced (the events module records them as `contact.subscribed` /
 * `contact.unsubscribed` events and publishes them to the workflow engine), so that contacts do not
 * depend on events.
 */
@Injectable()
export class SubscriptionEvents {
  private readonly listeners: SubscriptionListener[] = [];

  listen(listener: SubscriptionListener): void {
    this.listeners.push(listener);
  }

  async changed(m: EntityManager, projectId: string, contact: { id: string; email: string }, subscribed: boolean, correlationId?: string): Promise<void> {
    for (const listener of this.listeners) await listener(m, projectId, contact, subscribed, correlationId);
  }
}
