import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { AutomationsService } from '../automations/automations.service';
import { Clock } from '../common/clock';
import { selectRule } from '../matching/keyword-matcher';
import { AdvanceRun } from './advance-run';
import { ApplyInput } from './apply-input';
import { guardRun } from './engine-errors';
import type { InboundRow } from './inbound';
import { LoadRun } from './load-run';
import { OptOut } from './opt-out';
import { ReadProfile } from './read-profile';
import type { MachineInput } from './run-machine';

/**
 * A direct message or a story reply. In one transaction the person is counted; a DM that is STOP or
 * START (OptOut) is applied as such and goes no further; otherwise the text goes to
 * their run waiting for an email, else to one whose button went out as text (the reply is the tap),
 * else it is matched against the live dm / story_reply automations and starts a run. Then the run
 * moves: started by this message, or fed the text (or the tap).
 */
@Injectable()
export class ProcessMessage {
  constructor(
    private readonly transactions: Transactions,
    private readonly input: ApplyInput,
    private readonly automations: AutomationsService,
    private readonly loadRun: LoadRun,
    private readonly profiles: ReadProfile,
    private readonly advance: AdvanceRun,
    private readonly clock: Clock,
    private readonly optOut: OptOut,
  ) {}

  async execute(ev: InboundRow, account: AccountEntity): Promise<void> {
    const p = ev.payload as { mid: string; sender_id: string; text?: string; story_id?: string };
    let runId = ev.run_id;
    if (!ev.applied_at) {
      runId = await this.transactions.transaction(async () => {
        await this.input.touch(account.id, p.sender_id, null, 'message');
        const command = ev.kind === 'message' ? this.optOut.command(p.text) : null;
        if (command) {
          await this.optOut.execute(account.id, p.sender_id, command, p.mid);
          await this.input.applied(ev, null);
          return null;
        }
        const waiting = p.text ? await this.input.waitingRun(account.id, p.sender_id, ev.kind === 'story_reply' ? 'story_reply' : 'message') : null;
        if (waiting) {
          await this.input.applied(ev, waiting.id);
          return waiting.id;
        }
        const trigger = ev.kind === 'story_reply' ? 'story_reply' : 'dm';
        const match = selectRule(p.text ?? '', await this.automations.live(account.id, trigger));
        const run = match
          ? await this.input.startRun(account, match.rule, { igId: p.sender_id, trigger, mediaId: p.story_id ?? null, commentId: null, parentId: null, messageId: p.mid, text: p.text ?? null })
          : null;
        await this.input.applied(ev, run);
        return run;
      });
    }
    const loaded = runId ? await this.loadRun.execute(runId, account.id) : null;
    if (!loaded) return;
    const { run, automation: a, contact } = loaded;
    const starting = run.message_id === p.mid;
    if (starting && run.state === 'started' && !run.username) await this.profiles.fillUsername(account, run, contact);
    const tapByText = !starting && run.text_fallback && (run.state === 'awaiting_tap' || run.state === 'gated');
    const input: MachineInput = starting
      ? { type: 'start', answeredByOther: false, knownEmail: contact?.email ?? null }
      : tapByText
        ? { type: 'tap', knownEmail: contact?.email ?? null, now: this.clock.now() }
        : { type: 'text', text: p.text ?? '' };
    await guardRun(run.id, () => this.advance.execute(account, a, run, ev, input));
  }
}
