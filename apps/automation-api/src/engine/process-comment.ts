import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { AutomationsService } from '../automations/automations.service';
import { ContactsService } from '../contacts/contacts.service';
import { selectRule } from '../matching/keyword-matcher';
import { RunsService } from '../runs/runs.service';
import { AdvanceRun } from './advance-run';
import { AnsweredByOther } from './answered-by-other';
import { ApplyInput } from './apply-input';
import { guardRun } from './engine-errors';
import { coversMedia } from './engine-helpers';
import type { InboundRow } from './inbound';

interface CommentPayload {
  comment_id: string;
  media_id: string | null;
  text: string;
  from: { id: string; username?: string };
  parent_id?: string;
  entry_id?: string;
  /** Backfill: the automation whose reel the comment is under. */
  automation_id?: number;
  /** Backfill: the webhook stored the comment too, so the contact counted it already. */
  counted?: boolean;
}

/**
 * A comment (webhook) or a backfilled one (a next_post reel's earlier comments): in one
 * transaction the person is counted, the comment matched against the live comment automations
 * covering the post and the run started; then, unless the account answered it itself
 * (skip_if_answered), the run starts moving.
 */
@Injectable()
export class ProcessComment {
  constructor(
    private readonly transactions: Transactions,
    private readonly input: ApplyInput,
    private readonly runs: RunsService,
    private readonly automations: AutomationsService,
    private readonly contacts: ContactsService,
    private readonly answeredByOther: AnsweredByOther,
    private readonly advance: AdvanceRun,
  ) {}

  async execute(ev: InboundRow, account: AccountEntity): Promise<void> {
    const p = ev.payload as CommentPayload;
    let runId = ev.run_id;
    if (!ev.applied_at) {
      if (ev.kind === 'backfill' && (await this.runs.commentHandled(account.id, p.comment_id))) {
        return;
      }
      runId = await this.transactions.transaction(async () => {
        if (!p.counted) await this.input.touch(account.id, p.from.id, p.from.username ?? null, 'comment');
        let candidates = (await this.automations.live(account.id, 'comment')).filter((a) => coversMedia(a, p.media_id));
        if (ev.kind === 'backfill') candidates = candidates.filter((a) => a.id === p.automation_id);
        const match = selectRule(p.text ?? '', candidates);
        const run = match ? await this.input.startRun(account, match.rule, { igId: p.from.id, username: p.from.username ?? null, trigger: 'comment', mediaId: p.media_id, commentId: p.comment_id, parentId: p.parent_id ?? null, messageId: null, text: p.text }) : null;
        await this.input.applied(ev, run);
        return run;
      });
    }
    if (!runId) return;
    const run = await this.runs.find(runId);
    if (!run || run.state !== 'started') return;
    const a = await this.automations.findById(run.automation_id);
    if (!a) return;
    await guardRun(run.id, async () => {
      let answeredByOther = false;
      if (run.comment_id && a.skip_if_answered) {
        answeredByOther = await this.answeredByOther.execute(account, run, account.ig_user_id ?? p.entry_id ?? null);
      }
      const contact = await this.contacts.find(account.id, run.contact_ig_id);
      await this.advance.execute(account, a, run, ev, { type: 'start', answeredByOther, knownEmail: contact?.email ?? null });
    });
  }
}
