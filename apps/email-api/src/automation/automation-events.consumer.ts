import { Injectable, Logger } from '@nestjs/common';
import {
  AutomationEmailCaptured,
  AutomationLinkClicked,
  AutomationLinkSent,
  EventConsumer,
  OnEvent,
  type AutomationEmailCapturedData,
  type AutomationLinkClickedData,
  type AutomationLinkSentData,
  type EventEnvelope,
} from '@platform/messaging';
import { isEmail } from 'class-validator';
import type { Project } from '../access/project';
import { ProjectDirectory } from '../access/project-directory.service';
import { ContactsService } from '../contacts/contacts.service';
import { TrackService, type TrackInput } from '../events/track.service';

export const AUTOMATION_CONSUMER = 'email-api.automation';

type AutomationData = AutomationEmailCapturedData | AutomationLinkSentData | AutomationLinkClickedData;

/** Event-only properties (`persistent: false`): they go to the event and the workflow context, never onto the contact. */
const eventOnly = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v, persistent: false }]));

/**
 * automation-api → email-api. Each event is handled once (the inbox, in one transaction with its
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
@EventConsumer(AUTOMATION_CONSUMER)
export class AutomationEventsConsumer {
  private readonly logger = new Logger('AutomationEventsConsumer');

  constructor(
    private readonly projects: ProjectDirectory,
    private readonly contacts: ContactsService,
    private readonly tracking: TrackService,
  ) {}

  @OnEvent(AutomationEmailCaptured)
  async emailCaptured(event: EventEnvelope<AutomationEmailCapturedData>): Promise<void> {
    const target = await this.target(event);
    if (!target) return;
    const { project, email } = target;
    const data = event.data;
    const existing = await this.contacts.findByEmail(project.id, email);
    const previousTags = Array.isArray(existing?.data['tags']) ? (existing!.data['tags'] as unknown[]).filter((t): t is string => typeof t === 'string') : [];
    const tags = [...new Set([...previousTags, ...(data.tags ?? [])])];
    await this.track(event, project, {
      email,
      event: 'email_captured',
      data: {
        igUserId: data.igUserId,
        ...(data.igUsername ? { igUsername: data.igUsername } : {}),
        ...(data.automationName ? { automationName: data.automationName } : {}),
        ...(tags.length ? { tags } : {}),
        ...eventOnly(common(data)),
      },
    });
  }

  @OnEvent(AutomationLinkSent)
  async linkSent(event: EventEnvelope<AutomationLinkSentData>): Promise<void> {
    const target = await this.target(event);
    if (!target) return;
    const { linkUrl, tracked } = event.data;
    await this.track(event, target.project, { email: target.email, event: 'link_sent', data: eventOnly({ ...common(event.data), linkUrl, tracked }) });
  }

  @OnEvent(AutomationLinkClicked)
  async linkClicked(event: EventEnvelope<AutomationLinkClickedData>): Promise<void> {
    const target = await this.target(event);
    if (!target) return;
    const { linkUrl, linkIndex, firstClick } = event.data;
    await this.track(event, target.project, {
      email: target.email,
      event: 'link_clicked',
      data: eventOnly({ ...common(event.data), linkUrl, linkIndex, firstClick }),
    });
  }

  /** The linked, enabled project and the contact's email; null when the event is dropped. */
  private async target(event: EventEnvelope<AutomationData>): Promise<{ project: Project; email: string } | null> {
    const data = event.data;
    if (!data.emailPublicKey) return null;
    const project = await this.projects.findByPublicKey(data.emailPublicKey);
    if (!project || project.disabled) {
      this.logger.warn(`${event.type} ${event.id}: no enabled email project for the linked public key; event dropped`);
      return null;
    }
    const email = typeof data.email === 'string' ? data.email.trim().toLowerCase() : null;
    if (!email || !isEmail(email)) return null;
    return { project, email };
  }

  /** Tracks in the inbox's transaction (the handler runs inside it). */
  private async track(event: EventEnvelope<AutomationData>, project: Project, input: TrackInput): Promise<void> {
    await this.tracking.track(project.id, input, event.correlationId);
  }
}

function common(data: AutomationData): Record<string, unknown> {
  return { automationId: data.automationId, runId: data.runId, accountId: data.accountId };
}
