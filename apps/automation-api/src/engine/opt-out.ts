import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { ContactsService } from '../contacts/contacts.service';
import { EventsService } from '../events/events.service';
import { RunsService } from '../runs/runs.service';
import { optCommand, parseKeywordList, type OptCommand } from './opt-out-command';

/**
 * STOP / START from a person, inside the message's transaction: STOP (AUTOMATION_STOP_KEYWORDS as the
 * whole message) stores the opt-out on the contact, ends every run of theirs still going (`skipped`,
 * reason `stopped_by_person`, an Event each) and records an `opted_out` Event; from then on no run starts
 * for them (ApplyInput). START (AUTOMATION_START_KEYWORDS) undoes it (`opted_in` Event). Nothing is
 * sent back: the person asked for silence.
 */
@Injectable()
export class OptOut {
  private readonly stopWords: string[];
  private readonly startWords: string[];

  constructor(
    private readonly contacts: ContactsService,
    private readonly runs: RunsService,
    private readonly events: EventsService,
    private readonly clock: Clock,
    @Inject(AutomationConfig) config: AutomationConfig,
  ) {
    this.stopWords = parseKeywordList(config.AUTOMATION_STOP_KEYWORDS);
    this.startWords = parseKeywordList(config.AUTOMATION_START_KEYWORDS);
  }

  /** The command the message is, or null (an ordinary message). */
  command(text: string | null | undefined): OptCommand | null {
    return optCommand(text, this.stopWords, this.startWords);
  }

  /** Applies the command for the person; the contact row exists (the message was counted first). */
  async execute(accountId: number, igId: string, command: OptCommand, ref: string): Promise<void> {
    const contact = await this.contacts.find(accountId, igId);
    const username = contact?.username ?? null;
    if (command === 'start') {
      if (!contact?.opted_out_at) return;
      await this.contacts.setOptedOut(accountId, igId, null);
      await this.events.record(accountId, { kind: 'opted_in', username, text: 'START: automation may answer this person again', ref });
      return;
    }
    if (!contact?.opted_out_at) await this.contacts.setOptedOut(accountId, igId, this.clock.now());
    for (const run of await this.runs.endForPerson(accountId, igId, 'stopped_by_person')) {
      await this.events.record(accountId, { kind: 'skipped', automation_id: run.automation_id, run_id: run.id, username, text: 'stopped_by_person: the person sent STOP; the run ends here', ref });
    }
    await this.events.record(accountId, { kind: 'opted_out', username, text: 'STOP: no automation answers this person any more (until START)', ref });
  }
}
