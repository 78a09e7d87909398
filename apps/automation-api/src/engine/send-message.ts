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
import { findArrival, hasPostback, isTemplate, templateAsText, type ConversationMessage } from './engine-helpers';
import type { InboundRow } from './inbound';
import { InboundService } from './inbound.service';
import type { MachineMessage } from './run-machine';
import { SendPacing } from './send-pacing';
import { SendsRepository, type SendRow } from './sends.repository';

type SendKind = 'public_reply' | 'private_reply' | 'dm';
/** What became of one message: sent now, sent before (or not to be sent twice), refused as a second private reply, or too late for one. */
export type SendOutcome = 'sent' | 'already' | 'refused' | 'window_closed';

/**
 * One outgoing message of a run, at most once: the intent is stored before the platform call and
 * confirmed after. A call that died mid-flight (timeout, connection cut after the request was
 * written, 5xx: GraphApiError.mayHaveArrived) marks the intent `uncertain`; an unconfirmed intent
 * found later (that, or a crash) is checked against the platform before any retry: a public reply
 * is looked up under the comment, a direct message or private reply in the conversation with the
 * person (Conversations API). Found: confirmed with the platform's id, never sent again. Not found:
 * sent again (a private reply the conversation does not show yet is still confirmed by the
 * platform refusing a second one). When the conversation cannot be read (permission), a plain DM
 * is not sent again (Event `send_uncertain`).
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
    private readonly pacing: SendPacing,
  ) {}

  async execute(account: AccountEntity, a: AutomationEntity, run: RunRow, msg: MachineMessage, ev: InboundRow): Promise<SendOutcome> {
    const stepKey = `${msg.step}:v${run.version}`;
    const kind = msg.kind === 'public_reply' ? 'public_reply' : msg.to === 'comment' ? 'private_reply' : 'dm';
    const existing = await this.sends.find(run.id, stepKey);
    if (existing?.status === 'done') return 'already';
    const client = this.graph.client(account, 'background');
    const uncertain = existing?.status === 'intent' || existing?.status === 'uncertain';
    const base = { automation_id: a.id, run_id: run.id, username: run.username };

    if (uncertain && kind === 'public_reply') {
      const commentId = String(existing.payload.comment_id);
      const comment = await client.getComment(commentId);
      const accountId = account.ig_user_id;
      const found = (comment.replies?.data ?? []).find((r) => (!accountId || r.from?.id === accountId) && r.text === existing.payload.text);
      if (found) {
        await this.confirmPublicReply(account, run, existing.id, commentId, found.id);
        await this.events.record(account.id, { ...base, kind: 'send_confirmed', text: `${msg.step}: the unconfirmed public reply is under the comment; not posted again`, ref: stepKey });
        return 'already';
      }
    }
    if (uncertain && kind !== 'public_reply') {
      const arrived = await this.lookUpInConversation(account, run, existing);
      if (arrived === 'unreadable' && kind === 'dm') {
        await this.sends.done(existing.id, null, 'uncertain: not sent again');
        await this.events.record(account.id, { ...base, kind: 'send_uncertain', text: `${msg.step}: the platform did not confirm the message and the conversation cannot be read; not sent twice`, ref: stepKey });
        return 'already';
      }
      if (arrived && arrived !== 'unreadable') {
        await this.sends.done(existing.id, arrived.id, 'confirmed in the conversation');
        if (kind === 'private_reply') await this.runs.recordCommentReply(account.id, run.comment_id!, run.media_id, 'private_reply', arrived.id, run.id);
        await this.events.record(account.id, { ...base, kind: 'send_confirmed', text: `${msg.step}: the unconfirmed message is in the conversation; not sent again`, ref: stepKey });
        return 'already';
      }
    }

    const payload: Record<string, unknown> =
      existing?.payload ??
      (msg.kind === 'public_reply' ? { comment_id: msg.commentId, text: msg.text } : { recipient: msg.to === 'comment' ? { comment_id: run.comment_id } : { id: run.contact_ig_id }, message: await this.compose.execute(account, a, run, msg) });

    if (kind === 'private_reply') {
      // The hourly budget and the send slot are shared by every replica (PostgreSQL): ask them before recording the intent.
      const wait = await this.pacing.privateReplyWaitMs(account.id);
      if (wait > 0) throw deferred(wait);
    }
    let intent = existing ?? (await this.sends.recordIntent(account.id, run.id, stepKey, kind, payload));
    if (intent.status === 'done') return 'already';
    await this.inbound.renewLease(ev.id);
    try {
      return await this.deliverOrMarkUncertain(account, run, kind, intent, uncertain, base, stepKey);
    } catch (err) {
      // The platform refused the button template (code 100, see GraphApiError.templateRejected): the
      // intent's payload becomes the same message as text (links inline) and goes out once; a crash
      // from here on finds the text intent and resolves it like any other unconfirmed send.
      if (!(err instanceof GraphApiError) || !err.templateRejected || !isTemplate(intent.payload.message)) throw err;
      const template = intent.payload.message;
      intent = await this.sends.replacePayload(intent.id, { ...intent.payload, message: { text: templateAsText(template) }, fallback: 'text' });
      if (hasPostback(template)) await this.runs.setTextFallback(run.id);
      await this.events.record(account.id, { ...base, kind: 'template_fallback', text: `${msg.step}: button template refused by the platform (${err.detail}); sent as text`.slice(0, 1000), ref: stepKey });
      return await this.deliverOrMarkUncertain(account, run, kind, intent, uncertain, base, stepKey);
    }
  }

  /** deliver(); a call that died mid-flight leaves the intent `uncertain` (Event `send_uncertain`) and is retried by the work item. */
  private async deliverOrMarkUncertain(
    account: AccountEntity,
    run: RunRow,
    kind: SendKind,
    intent: SendRow,
    uncertain: boolean,
    base: { automation_id: number; run_id: string; username: string | null },
    stepKey: string,
  ): Promise<SendOutcome> {
    try {
      return await this.deliver(account, run, kind, intent, uncertain);
    } catch (err) {
      if (err instanceof GraphApiError && err.mayHaveArrived) {
        await this.sends.uncertain(intent.id, err.detail);
        await this.events.record(account.id, {
          ...base,
          kind: 'send_uncertain',
          text: `${stepKey.replace(/:v\d+$/, '')}: ${err.detail}; the message may have arrived, checked on the platform before any retry`.slice(0, 1000),
          ref: stepKey,
        });
      }
      throw err;
    }
  }

  /**
   * The arrival of an unconfirmed direct message or private reply in the conversation with the
   * person; null: not there; `unreadable`: the platform refused the lookup for good (permissions).
   */
  private async lookUpInConversation(account: AccountEntity, run: RunRow, send: SendRow): Promise<ConversationMessage | 'unreadable' | null> {
    let messages: ConversationMessage[];
    try {
      messages = await this.graph.client(account, 'background').conversationMessages(run.contact_ig_id);
    } catch (err) {
      if (err instanceof GraphApiError && !err.retryable) return 'unreadable';
      throw err;
    }
    const known = await this.sends.knownPlatformIds(account.id, messages.map((m) => m.id));
    return findArrival(messages, send, { accountId: account.ig_user_id ?? null, personId: run.contact_ig_id }, known);
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
