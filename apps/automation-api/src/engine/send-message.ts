import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import type { AutomationEntity } from '../automations/entities/automation.entity';
import { EventsService } from '../events/events.service';
import { BudgetExhaustedError } from '../graph/call-budget';
import { GraphApiError } from '../graph/graph-api.error';
import type { GraphMessage } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import type { RunRow } from '../runs/run';
import { RunsService } from '../runs/runs.service';
import { ComposeMessage } from './compose-message';
import { deferred } from './engine-errors';
import { hasPostback, isTemplate, templateAsText } from './engine-helpers';
import type { InboundRow } from './inbound';
import { InboundService } from './inbound.service';
import type { MachineMessage } from './run-machine';
import { SendsRepository, type SendRow } from './sends.repository';

type SendKind = 'public_reply' | 'private_reply' | 'dm';
/** What became of one message: sent now, sent before (or not to be sent twice), refused as a second private reply, or too late for one. */
export type SendOutcome = 'sent' | 'already' | 'refused' | 'window_closed';

/**
 * One outgoing message of a run, at most once: the intent is stored before the platform call and
 * confirmed after. An unconfirmed intent found later (crash or timeout) is resolved without a blind
 * resend: a public reply is looked up under the comment first; a private reply is tried again and
 * the platform's "invalid for a private reply" means it went out; a plain DM is not sent again.
 */
@Injectable()
export class SendMessage {
  constructor(
    private readonly sends: SendsRepository,
    private readonly runs: RunsService,
    private readonly events: EventsService,
    private readonly graph: GraphService,
    private readonly inbound: InboundService,
    private readonly compose: ComposeMessage,
  ) {}

  async execute(account: AccountEntity, a: AutomationEntity, run: RunRow, msg: MachineMessage, ev: InboundRow): Promise<SendOutcome> {
    const stepKey = `${msg.step}:v${run.version}`;
    const kind = msg.kind === 'public_reply' ? 'public_reply' : msg.to === 'comment' ? 'private_reply' : 'dm';
    const existing = await this.sends.find(run.id, stepKey);
    if (existing?.status === 'done') return 'already';
    const client = this.graph.client(account, 'background');
    const uncertain = existing?.status === 'intent';
    const base = { automation_id: a.id, run_id: run.id, username: run.username };

    if (uncertain && kind === 'dm') {
      await this.sends.done(existing.id, null, 'uncertain: not sent again');
      await this.events.record(account.id, { ...base, kind: 'send_uncertain', text: `${msg.step}: the platform did not confirm the message; not sent twice`, ref: stepKey });
      return 'already';
    }
    if (uncertain && kind === 'public_reply') {
      const commentId = String(existing.payload.comment_id);
      const comment = await client.getComment(commentId);
      const accountId = account.ig_user_id;
      const found = (comment.replies?.data ?? []).find((r) => (!accountId || r.from?.id === accountId) && r.text === existing.payload.text);
      if (found) {
        await this.confirmPublicReply(account, run, existing.id, commentId, found.id);
        return 'already';
      }
    }

    const payload: Record<string, unknown> =
      existing?.payload ??
      (msg.kind === 'public_reply' ? { comment_id: msg.commentId, text: msg.text } : { recipient: msg.to === 'comment' ? { comment_id: run.comment_id } : { id: run.contact_ig_id }, message: await this.compose.execute(account, a, run, msg) });

    if (kind === 'private_reply') {
      // The budget is shared by every replica (PostgreSQL): ask it before recording the intent.
      const wait = await this.graph.privateReplyBudget(account.id).checkWaitMs();
      if (wait > 0) throw deferred(wait);
    }
    let intent = existing ?? (await this.sends.recordIntent(account.id, run.id, stepKey, kind, payload));
    if (intent.status === 'done') return 'already';
    await this.inbound.renewLease(ev.id);
    try {
      return await this.deliver(account, run, kind, intent, uncertain);
    } catch (err) {
      // The platform refused the button template (code 100, see GraphApiError.templateRejected): the
      // intent's payload becomes the same message as text (links inline) and goes out once; a crash
      // from here on finds the text intent and resolves it like any other unconfirmed send.
      if (!(err instanceof GraphApiError) || !err.templateRejected || !isTemplate(intent.payload.message)) throw err;
      const template = intent.payload.message;
      intent = await this.sends.replacePayload(intent.id, { ...intent.payload, message: { text: templateAsText(template) }, fallback: 'text' });
      if (hasPostback(template)) await this.runs.setTextFallback(run.id);
      await this.events.record(account.id, { ...base, kind: 'template_fallback', text: `${msg.step}: button template refused by the platform (${err.detail}); sent as text`.slice(0, 1000), ref: stepKey });
      return await this.deliver(account, run, kind, intent, uncertain);
    }
  }

  /**
   * The platform call of one intent and its confirmation, with the refusals a private reply may meet.
   * `uncertain`: the intent was found unconfirmed (an earlier attempt may have gone out).
   */
  private async deliver(account: AccountEntity, run: RunRow, kind: SendKind, intent: SendRow, uncertain: boolean): Promise<SendOutcome> {
    const client = this.graph.client(account, 'background');
    try {
      if (kind === 'public_reply') {
        const res = await client.replyToComment(String(intent.payload.comment_id), String(intent.payload.text));
        await this.confirmPublicReply(account, run, intent.id, String(intent.payload.comment_id), res.id);
      } else if (kind === 'private_reply') {
        const res = await client.sendPrivateReply(run.comment_id!, intent.payload.message as GraphMessage, { waitForBudget: false });
        await this.sends.done(intent.id, res.message_id);
        await this.runs.recordCommentReply(account.id, run.comment_id!, run.media_id, 'private_reply', res.message_id, run.id);
      } else {
        const res = await client.sendMessage({ id: run.contact_ig_id }, intent.payload.message as GraphMessage);
        await this.sends.done(intent.id, res.message_id);
      }
      return 'sent';
    } catch (err) {
      // Another replica took the last slot between the check and the send: nothing went out, the intent stays and is retried.
      if (err instanceof BudgetExhaustedError) throw deferred(err.waitMs);
      if (kind === 'private_reply' && err instanceof GraphApiError && err.privateReplyRefused) {
        const windowClosed = /outside of allowed window/i.test(err.detail);
        if (windowClosed) {
          await this.sends.failed(intent.id, err.detail);
          return 'window_closed';
        }
        if (uncertain) {
          // Our earlier attempt went out (the platform allows one private reply per comment).
          await this.sends.done(intent.id, null, 'confirmed by the platform refusing a second private reply');
          await this.runs.recordCommentReply(account.id, run.comment_id!, run.media_id, 'private_reply', null, run.id);
          return 'already';
        }
        await this.sends.failed(intent.id, err.detail);
        return 'refused';
      }
      // A refused template stays an intent: the caller sends the text version under the same intent.
      if (err instanceof GraphApiError && !err.retryable && !(err.templateRejected && isTemplate(intent.payload.message))) await this.sends.failed(intent.id, err.detail);
      throw err;
    }
  }

  private async confirmPublicReply(account: AccountEntity, run: RunRow, sendId: string, commentId: string, replyId: string): Promise<void> {
    await this.sends.done(sendId, replyId);
    await this.runs.setPublicReplyId(run.id, replyId);
    await this.runs.recordCommentReply(account.id, run.comment_id ?? commentId, run.media_id, 'public_reply', replyId, run.id);
  }
}
