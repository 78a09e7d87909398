import { Injectable } from '@nestjs/common';
import { EmailEventTracked, EventConsumer, OnEvent, type EmailEventTrackedData, type EventEnvelope } from '@platform/messaging';
import { ExecutionsRepository } from '../executions.repository';
import { ExecutionsWorker } from './executions.worker';
import { WorkflowEngine } from './workflow-engine';

export const WORKFLOWS_CONSUMER = 'email-api.workflows';

/** `segment.<slug>.entry|exit`, the names segment computes give the membership events. */
const SEGMENT_EVENT = /^segment\.[^.]+\.(entry|exit)$/;

/**
 * The engine's side of the event bus: every `email.event_tracked` (POST /v1/track and its alias,
 * the automation consumer's `email_captured`, `link_sent`, `link_clicked`, the segment computes'
 * `segment.<slug>.entry|exit`, `contact.subscribed|unsubscribed`) is handled once (the inbox, in
 * one transaction with the writes), off the request path:
 * - it starts every enabled workflow of the project whose trigger matches — EVENT by name,
 *   SEGMENT_ENTRY / SEGMENT_EXIT by the segment id the membership event carries — for the event's
 *   contact, `allowReentry` respected, at most once per event (the start key is the event id);
 * - it resumes the contact's executions waiting (WAIT_FOR_EVENT) for an event of that name.
 * The steps then run on the engine's worker, on whichever replica claims them.
 */
@Injectable()
@EventConsumer(WORKFLOWS_CONSUMER)
export class WorkflowTriggersConsumer {
  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly engine: WorkflowEngine,
    private readonly worker: ExecutionsWorker,
  ) {}

  @OnEvent(EmailEventTracked)
  async tracked(event: EventEnvelope<EmailEventTrackedData>): Promise<void> {
    const e = event.data;
    const properties = e.properties ?? {};
    const move = SEGMENT_EVENT.exec(e.event)?.[1] as 'entry' | 'exit' | undefined;
    const segment = move && typeof properties['segmentId'] === 'string' ? { id: properties['segmentId'], move } : null;
    const started = await this.executions.startForEvent({ projectId: e.projectId, contactId: e.contactId, eventName: e.event, eventId: e.eventId, data: properties, segment });
    const resumed = await this.engine.resumeWaiting(e.projectId, e.contactId, e.event, e.eventId, new Date(event.occurredAt));
    // the inbox commits when this handler returns; the worker looks then (and polls anyway)
    if (started.length || resumed) setTimeout(() => this.worker.wake(), 20).unref();
  }
}
