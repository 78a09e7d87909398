import { Injectable } from '@nestjs/common';
import { GroupCommit, Transactions } from '@platform/database';
import { EmailEventTracked, EventConsumer, Inbox, OnEvent, type EmailEventTrackedData, type EventEnvelope } from '@platform/messaging';
import { ExecutionsRepository, type TriggeringEvent } from '../executions.repository';
import { ExecutionsWorker } from './executions.worker';
import { WorkflowEngine } from './workflow-engine';

export const WORKFLOWS_CONSUMER = 'email-api.workflows';

/** Events handed to the consumer at once: as many as one transaction handles together. */
const PREFETCH = 64;

/** `segment.<slug>.entry|exit`, the names segment computes give the membership events. */
const SEGMENT_EVENT = /^segment\.[^.]+\.(entry|exit)$/;

/** One delivery: the event, and how its handling ended (set by the write that included it). */
interface Delivery {
  id: string;
  event: TriggeringEvent;
  at: Date;
  error?: unknown;
}

/**
 * The engine's side of the event bus: every `email.event_tracked` (POST /v1/track and its alias,
 * the automation consumer's `email_captured`, `link_sent`, `link_clicked`, the segment computes'
 * `segment.<slug>.entry|exit`, `contact.subscribed|unsubscribed`) is handled once (the inbox, in
 * one transaction with the writes), off the request path:
 * - it starts every enabled workflow of the project whose trigger matches — EVENT by name,
 *   SEGMENT_ENTRY / SEGMENT_EXIT by the segment id the membership event carries — for the event's
 *   contact, `allowReentry` respected, at most once per event (the start key is the event id);
 * - it resumes the contact's executions waiting (WAIT_FOR_EVENT) for an event of that name.
 * The deliveries that arrive while a write runs go together into the next one (group commit): one
 * transaction marks each in the inbox and starts the workflows of all of them in one statement, so
 * a segment entered by thousands of contacts at once costs a commit per batch, not per contact.
 * When such a transaction fails, each of its events is handled alone in a transaction of its own
 * (a failing one fails alone: retried, then dead-lettered). The steps then run on the engine's
 * worker, on whichever replica claims them.
 */
@Injectable()
@EventConsumer(WORKFLOWS_CONSUMER, { prefetch: PREFETCH })
export class WorkflowTriggersConsumer {
  private readonly writes = new GroupCommit<Delivery>((batch) => this.write(batch));

  constructor(
    private readonly executions: ExecutionsRepository,
    private readonly engine: WorkflowEngine,
    private readonly worker: ExecutionsWorker,
    private readonly transactions: Transactions,
    private readonly inbox: Inbox,
  ) {}

  /** Its inbox mark is written with its batch (`write`), not around this call. */
  @OnEvent(EmailEventTracked, { inbox: false })
  async tracked(envelope: EventEnvelope<EmailEventTrackedData>): Promise<void> {
    const e = envelope.data;
    const properties = e.properties ?? {};
    const move = SEGMENT_EVENT.exec(e.event)?.[1] as 'entry' | 'exit' | undefined;
    const segment = move && typeof properties['segmentId'] === 'string' ? { id: properties['segmentId'], move } : null;
    const delivery: Delivery = {
      id: envelope.id,
      event: { projectId: e.projectId, contactId: e.contactId, eventName: e.event, eventId: e.eventId, data: properties, segment },
      at: new Date(envelope.occurredAt),
    };
    await this.writes.add(delivery);
    if (delivery.error) throw delivery.error;
  }

  /** A batch of deliveries in one transaction; when it fails, each alone. Wakes the worker when something started or resumed. */
  private async write(batch: Delivery[]): Promise<void> {
    let moved: boolean;
    try {
      moved = await this.transactions.transaction(() => this.handle(batch));
    } catch (err) {
      if (batch.length === 1) {
        batch[0].error = err;
        return;
      }
      moved = false;
      for (const delivery of batch) {
        try {
          moved = (await this.transactions.transaction(() => this.handle([delivery]))) || moved;
        } catch (one) {
          delivery.error = one;
        }
      }
    }
    // committed: the worker looks now (and polls anyway)
    if (moved) this.worker.wake();
  }

  /** The deliveries not handled yet (the inbox marks them in the open transaction): their starts, then their resumptions. */
  private async handle(batch: Delivery[]): Promise<boolean> {
    const marked = await this.inbox.onceEach(WORKFLOWS_CONSUMER, batch.map((d) => d.id));
    const fresh = batch.filter((d) => marked.delete(d.id)); // an id twice in the batch: handled once
    const started = await this.executions.startForEvents(fresh.map((d) => d.event));
    const awaited = await this.executions.awaited(fresh.map((d) => d.event));
    let resumed = 0;
    for (const [i, d] of fresh.entries()) {
      if (awaited.has(i)) resumed += await this.engine.resumeWaiting(d.event.projectId, d.event.contactId, d.event.eventName, d.event.eventId, d.at);
    }
    return started.length > 0 || resumed > 0;
  }
}
