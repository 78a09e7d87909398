import { Inject, Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { ContactsService } from '../contacts/contacts.service';
import { EventsService } from '../events/events.service';
import { RunsService } from '../runs/runs.service';
import { messageText } from './engine-helpers';
import type { InboundRow } from './inbound';
import { SendsRepository } from './sends.repository';

/**
 * A message the account sent to a person (an echo). The service's own sends are known by their
 * platform id (`run_sends.platform_id`); an echo matching one of the person's unconfirmed sends
 * (intent or uncertain, same text) confirms it (Event `send_confirmed`). Any other echo was written
 * by a person of the account in the inbox: **human takeover** — automation pauses for this
 * conversation for AUTOMATION_TAKEOVER_MINUTES (`contacts.paused_until`), the person's runs still
 * going are stamped `taken_over_at` (Funnel `human_takeover`) with an Event `human_takeover` each,
 * and while the pause lasts no run starts for them and no run of theirs moves (ApplyInput, AdvanceRun).
 * Echoes are work items of the recipient, so they are processed after the item whose send they echo.
 */
@Injectable()
export class ProcessEcho {
  constructor(
    private readonly transactions: Transactions,
    private readonly sends: SendsRepository,
    private readonly runs: RunsService,
    private readonly contacts: ContactsService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
  ) {}

  async execute(ev: InboundRow, account: AccountEntity): Promise<void> {
    const p = ev.payload as { mid: string; recipient_id: string; text: string };
    if ((await this.sends.knownPlatformIds(account.id, [p.mid])).size > 0) return;
    const open = await this.sends.openForPerson(account.id, await this.runs.idsForPerson(account.id, p.recipient_id));
    const text = (p.text ?? '').trim();
    const mine = open.find((s) => messageText(s.payload.message).trim() === text);
    if (mine) {
      await this.sends.done(mine.id, p.mid, 'confirmed by its echo');
      const run = await this.runs.find(mine.run_id);
      await this.events.record(account.id, { kind: 'send_confirmed', automation_id: run?.automation_id ?? null, run_id: mine.run_id, username: run?.username ?? null, text: 'the unconfirmed message came back as an echo; not sent again', ref: p.mid });
      return;
    }
    // An echo without text (an attachment) while a send of ours is unconfirmed cannot be told apart: not a takeover.
    if (text === '' && open.length > 0) return;
    const minutes = this.config.AUTOMATION_TAKEOVER_MINUTES;
    if (minutes <= 0) return;
    const now = this.clock.now();
    const until = new Date(now.getTime() + minutes * 60_000);
    await this.transactions.transaction(async () => {
      await this.contacts.pauseUntil(account.id, p.recipient_id, until);
      const contact = await this.contacts.find(account.id, p.recipient_id);
      const username = contact?.username ?? null;
      const note = `a person of the account answered by hand; automation paused for this conversation until ${until.toISOString()}`;
      const taken = await this.runs.markTakenOver(account.id, p.recipient_id, now);
      for (const run of taken) await this.events.record(account.id, { kind: 'human_takeover', automation_id: run.automation_id, run_id: run.id, username, text: note, ref: p.mid });
      if (taken.length === 0) await this.events.record(account.id, { kind: 'human_takeover', username, text: note, ref: p.mid });
    });
  }
}
