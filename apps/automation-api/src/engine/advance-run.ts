import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { ContactsService } from '../contacts/contacts.service';
import { EventsService } from '../events/events.service';
import { Clock } from '../common/clock';
import type { RunRow } from '../runs/run';
import type { InboundRow } from './inbound';
import { ReadProfile } from './read-profile';
import { RecordTransition } from './record-transition';
import { transition, type MachineAutomation, type MachineInput, type MachineRun } from './run-machine';
import { SendMessage } from './send-message';

function machineAutomation(a: AutomationEntity): MachineAutomation {
  return a;
}

function machineRun(r: RunRow): MachineRun {
  return { ...r, trigger: r.trigger };
}

/**
 * Feeds one input to a run's state machine (run-machine.ts), asking the platform for the follow
 * status when the machine needs it, performs its messages with intents (SendMessage) and stores
 * the transition (RecordTransition). A refused first private reply (another tool answered) or a
 * comment past the private-reply window ends the run instead of the machine's next state. While a
 * person of the account has taken the conversation over (contacts.paused_until), nothing moves.
 */
@Injectable()
export class AdvanceRun {
  constructor(
    private readonly profiles: ReadProfile,
    private readonly contacts: ContactsService,
    private readonly events: EventsService,
    private readonly sendMessage: SendMessage,
    private readonly record: RecordTransition,
    private readonly clock: Clock,
  ) {}

  async execute(account: AccountEntity, a: AutomationEntity, run: RunRow, ev: InboundRow, input: MachineInput): Promise<void> {
    const ma = machineAutomation(a);
    const pausedUntil = (await this.contacts.find(account.id, run.contact_ig_id))?.paused_until ?? null;
    if (pausedUntil && pausedUntil.getTime() > this.clock.now().getTime()) {
      // Human takeover (ProcessEcho): nothing is sent into the conversation while the pause lasts; a due reminder ends the run unsent.
      await this.events.record(account.id, {
        kind: 'skipped',
        automation_id: a.id,
        run_id: run.id,
        username: run.username,
        text: `human_takeover: ${input.type} not acted on, a person of the account is answering this conversation (paused until ${pausedUntil.toISOString()})`,
        ref: ev.dedup_key,
      });
      if (input.type !== 'follow_up_due') return;
      input = { type: 'follow_up_due', windowOpen: false };
    }
    let res = transition(machineRun(run), ma, input);
    if (res.needs === 'follow_status') {
      const follows = await this.profiles.followStatus(account, run);
      const contact = await this.contacts.find(account.id, run.contact_ig_id);
      res = transition(machineRun(run), ma, { type: 'follow_status', follows, knownEmail: contact?.email ?? null });
      if (follows === null) res.notes.push('follow_status_unknown');
    }
    let publicDone = false;
    for (const msg of res.messages) {
      const outcome = await this.sendMessage.execute(account, a, run, msg, ev);
      if (msg.kind === 'public_reply') publicDone = true;
      if (outcome === 'refused') {
        // The platform refused the first private reply: another tool already answered this comment privately.
        res = { state: 'skipped_other_tool', stamps: publicDone ? ['public_reply_sent_at'] : [], messages: [], effects: [], notes: ['skipped_other_tool'] };
        break;
      }
      if (outcome === 'window_closed') {
        // The comment is older than the platform's 7-day private-reply window.
        res = { state: 'skipped', stamps: publicDone ? ['public_reply_sent_at'] : [], messages: [], effects: [], notes: ['private_reply_window_closed'], error: 'private reply window closed (comment older than 7 days)' };
        break;
      }
    }
    if (res.state === run.state && res.stamps.every((s) => run[s] !== null) && res.messages.length === 0 && res.effects.length === 0) {
      for (const note of res.notes.filter((n) => n !== 'ignored')) await this.events.record(account.id, { kind: note, automation_id: a.id, run_id: run.id, username: run.username });
      return;
    }
    await this.record.execute(account, a, run, res);
  }
}
