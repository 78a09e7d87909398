import { Injectable } from '@nestjs/common';
import { AutomationEmailCaptured, AutomationLinkSent, Outbox } from '@platform/messaging';
import type { AccountEntity } from '../accounts/entities/account.entity';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { ContactsService } from '../contacts/contacts.service';
import type { RunRow } from '../runs/run';
import { DeliveriesRepository } from './deliveries.repository';

/**
 * A run's `email_captured` / `link_sent`: the customer webhook (stored for delivery with retries,
 * DeliveriesWorker) and the bus event (outbox), in the caller's transaction (the run's transition).
 */
@Injectable()
export class AnnounceRun {
  constructor(
    private readonly contacts: ContactsService,
    private readonly deliveries: DeliveriesRepository,
    private readonly outbox: Outbox,
  ) {}

  async execute(account: AccountEntity, a: AutomationEntity, run: RunRow, kind: 'email_captured' | 'link_sent', email: string | null, at: Date): Promise<void> {
    const contact = await this.contacts.find(account.id, run.contact_ig_id);
    const tracked = a.track_clicks && Boolean(account.public_base_url);
    if (a.webhook_url) {
      const payload = {
        event: kind,
        occurred_at: at.toISOString(),
        automation: { id: a.id, name: a.name },
        contact: { ig_id: run.contact_ig_id, username: contact?.username ?? run.username, email: email ?? contact?.email ?? null },
        run_id: Number(run.id),
        ...(kind === 'link_sent' ? { link: a.link_url } : {}),
      };
      await this.deliveries.insert({ account_id: account.id, automation_id: a.id, run_id: run.id, kind, url: a.webhook_url, payload });
    }
    const ref = {
      accountId: String(account.id),
      emailPublicKey: account.email_public_key,
      igUserId: run.contact_ig_id,
      igUsername: contact?.username ?? run.username,
      automationId: String(a.id),
      runId: String(run.id),
    };
    if (kind === 'email_captured') {
      await this.outbox.enqueue(AutomationEmailCaptured, { ...ref, email: email!, automationName: a.name, tags: a.tags });
    } else {
      await this.outbox.enqueue(AutomationLinkSent, { ...ref, email: email ?? contact?.email ?? null, linkUrl: a.link_url ?? a.extra_links[0]?.url ?? '', tracked });
    }
  }
}
