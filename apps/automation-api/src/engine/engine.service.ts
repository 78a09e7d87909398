import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import { FailRun } from './fail-run';
import type { InboundRow } from './inbound';
import { ProcessComment } from './process-comment';
import { ProcessEcho } from './process-echo';
import { ProcessReadFallback } from './process-read-fallback';
import { ProcessSeen } from './process-seen';
import { ProcessFollowUp } from './process-follow-up';
import { ProcessMessage } from './process-message';
import { ProcessPostback } from './process-postback';

/** The items about the people behind the conversations: echoes (human takeover), reads and the read fallback. */
@Injectable()
export class PeopleItems {
  constructor(
    readonly echo: ProcessEcho,
    readonly seen: ProcessSeen,
    readonly readFallback: ProcessReadFallback,
  ) {}
}

/**
 * Processes one work item of the queue (webhook deliveries, reminders, reel backfills) by its kind,
 * each a use case of its own: ProcessComment, ProcessMessage, ProcessPostback, ProcessFollowUp, and
 * ProcessEcho, ProcessSeen, ProcessReadFallback (PeopleItems).
 * Each finds or starts the run, feeds the input to the state machine (AdvanceRun), performs its
 * sends with intents (SendMessage) and stores the transition with its Events, customer webhooks
 * and bus events in one transaction (RecordTransition). Every step is idempotent: the item may be
 * processed again after a crash or a redelivery.
 */
@Injectable()
export class EngineService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly comment: ProcessComment,
    private readonly message: ProcessMessage,
    private readonly postback: ProcessPostback,
    private readonly followUp: ProcessFollowUp,
    private readonly failRun: FailRun,
    private readonly people: PeopleItems,
  ) {}

  async process(ev: InboundRow): Promise<void> {
    const account = await this.accounts.findById(ev.account_id);
    if (!account) return;
    switch (ev.kind) {
      case 'comment':
      case 'backfill':
        return this.comment.execute(ev, account);
      case 'message':
      case 'story_reply':
        return this.message.execute(ev, account);
      case 'postback':
        return this.postback.execute(ev, account);
      case 'follow_up':
        return this.followUp.execute(ev, account);
      case 'echo':
        return this.people.echo.execute(ev, account);
      case 'seen':
        return this.people.seen.execute(ev, account);
      case 'read_fallback':
        return this.people.readFallback.execute(ev, account);
    }
  }

  /** Records a run's final failure: state error, an Event, and the account's problem (GET /status). */
  fail(ev: InboundRow, err: unknown): Promise<void> {
    return this.failRun.execute(ev, err);
  }
}
