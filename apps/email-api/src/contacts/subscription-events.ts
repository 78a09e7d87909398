import { Injectable } from '@nestjs/common';

/** A contact whose subscription state changed, inside the transaction that changed it. */
export type SubscriptionListener = (
  projectId: string,
  contact: { id: string; email: string },
  subscribed: boolean,
  correlationId?: string,
) => Promise<void>;

/**
 * Where subscription changes are announced (the events module records them as `contact.subscribed` /
 * `contact.unsubscribed` events and publishes them as `email.event_tracked`), so that contacts do not
 * depend on events.
 */
@Injectable()
export class SubscriptionEvents {
  private readonly listeners: SubscriptionListener[] = [];

  listen(listener: SubscriptionListener): void {
    this.listeners.push(listener);
  }

  async changed(projectId: string, contact: { id: string; email: string }, subscribed: boolean, correlationId?: string): Promise<void> {
    for (const listener of this.listeners) await listener(projectId, contact, subscribed, correlationId);
  }
}
