import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  AutomationEmailCaptured,
  AutomationLinkClicked,
  AutomationLinkSent,
  EventBus,
  Inbox,
  type AutomationEmailCapturedData,
  type AutomationLinkClickedData,
  type AutomationLinkSentData,
  type EventEnvelope,
} from '@platform/messaging';
import { isEmail } from 'class-validator';
import { DataSource, type EntityManager } from 'typeorm';
import { ProjectsRepository } from '../access/projects.repository';
import { EmailApiConfig } from '../config';
import { ContactsRepository } from '../contacts/contacts.repository';
import { TrackService } from '../events/track.service';

export const AUTOMATION_CONSUMER = 'email-api.automation';

type AutomationData = AutomationEmailCapturedData | AutomationLinkSentData | AutomationLinkClickedData;

/** Event-only properties (`persistent: false`): they go to the event and the workflow context, never onto the contact. */
const eventOnly = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v, persistent: false }]));

/**
 * automation-api → email-api. Each event is handled once (Inbox, in the same transaction as its
 * writes): the project is the one whose public key the automation account is linked to
 * (`emailPublicKey`; events without one, with an unknown or rotated key, or of a disabled project are
 * dropped with a log line), the contact is upserted and the event tracked, which publishes
 * `email.event_tracked` for the workflow engine.
 *
 * - `automation.email_captured` → event `email_captured`; the contact gets `igUserId`, `igUsername`,
 *   `automationName` and the automation's `tags` (added to the tags it has).
 * - `automation.link_sent` / `automation.link_clicked` → events `link_sent` / `link_clicked` on the
 *   contact when its email is known (link details on the event only).
 */
@Injectable()
export class AutomationEventsConsumer implements OnApplicationBootstrap {
  private readonly logger = new Logger('AutomationEventsConsumer');

  constructor(
    private readonly bus: EventBus,
    private readonly dataSource: DataSource,
    private readonly projects: ProjectsRepository,
    private readonly contacts: ContactsRepository,
    private readonly tracking: TrackService,
    private readonly config: EmailApiConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.subscribe(
      `${this.config.EVENTS_QUEUE_PREFIX ?? ''}${AUTOMATION_CONSUMER}`,
      [AutomationEmailCaptured, AutomationLinkSent, AutomationLinkClicked],
      Inbox.handler<AutomationData>(this.dataSource, AUTOMATION_CONSUMER, (event, m) => this.handle(event, m)),
    );
  }

  async handle(event: EventEnvelope<AutomationData>, m: EntityManager): Promise<void> {
    const data = event.data;
    if (!data.emailPublicKey) return;
    const project = await this.projects.findByPublicKey(data.emailPublicKey, m);
    if (!project || project.disabled) {
      this.logger.warn(`${event.type} ${event.id}: no enabled email project for the linked public key; event dropped`);
      return;
    }
    const email = typeof data.email === 'string' ? data.email.trim().toLowerCase() : null;
    if (!email || !isEmail(email)) return;
    const common = { automationId: data.automationId, runId: data.runId, accountId: data.accountId };
    if (event.type === AutomationEmailCaptured.type) {
      const captured = data as AutomationEmailCapturedData;
      const existing = await this.contacts.findByEmail(project.id, email, m);
      const previousTags = Array.isArray(existing?.data['tags']) ? (existing!.data['tags'] as unknown[]).filter((t): t is string => typeof t === 'string') : [];
      const tags = [...new Set([...previousTags, ...(captured.tags ?? [])])];
      await this.tracking.track(
        m,
        project.id,
        {
          email,
          event: 'email_captured',
          data: {
            igUserId: captured.igUserId,
            ...(captured.igUsername ? { igUsername: captured.igUsername } : {}),
            ...(captured.automationName ? { automationName: captured.automationName } : {}),
            ...(tags.length ? { tags } : {}),
            ...eventOnly(common),
          },
        },
        event.correlationId,
      );
      return;
    }
    if (event.type === AutomationLinkSent.type) {
      const sent = data as AutomationLinkSentData;
      await this.tracking.track(m, project.id, { email, event: 'link_sent', data: eventOnly({ ...common, linkUrl: sent.linkUrl, tracked: sent.tracked }) }, event.correlationId);
      return;
    }
    const clicked = data as AutomationLinkClickedData;
    await this.tracking.track(
      m,
      project.id,
      { email, event: 'link_clicked', data: eventOnly({ ...common, linkUrl: clicked.linkUrl, linkIndex: clicked.linkIndex, firstClick: clicked.firstClick }) },
      event.correlationId,
    );
  }
}
