import { Injectable } from '@nestjs/common';
import { AccountsService } from '../accounts/accounts.service';
import type { AccountEntity, AccountStatus } from '../accounts/entities/account.entity';
import { lastDecryptError } from '../accounts/token-cipher';
import { isLive } from '../automations/automation.presenter';
import { AutomationsService } from '../automations/automations.service';
import { CommentPollerService } from '../comment-poller/comment-poller.service';
import { SubscriptionChecksRepository } from './subscription-checks.repository';
import { Clock } from '../common/clock';
import { ContactsService } from '../contacts/contacts.service';
import { ENGINE_PROBLEM_PREFIX } from '../engine/fail-run';
import { InboundService } from '../engine/inbound.service';
import { SendPacing } from '../engine/send-pacing';
import { GraphApiError } from '../graph/graph-api.error';
import { REQUIRED_SUBSCRIBED_FIELDS } from '../graph/graph-client';
import { GraphService } from '../graph/graph.service';
import { RunsService } from '../runs/runs.service';
import { TOKEN_PROBLEM_PREFIX } from '../tokens/tokens.service';
import type { StatusDto } from './status.dto';

const DAY = 86_400_000;

function describe(err: unknown): string {
  if (err instanceof GraphApiError) return err.detail;
  return err instanceof Error ? err.message : String(err);
}

@Injectable()
export class StatusService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly automations: AutomationsService,
    private readonly contacts: ContactsService,
    private readonly runs: RunsService,
    private readonly graph: GraphService,
    private readonly poller: CommentPollerService,
    private readonly checks: SubscriptionChecksRepository,
    private readonly inbound: InboundService,
    private readonly pacing: SendPacing,
    private readonly clock: Clock,
  ) {}

  /** Always 200: a platform failure shows in `problem` / `webhook_problem`, not as an error status. */
  async status(account: AccountEntity): Promise<StatusDto> {
    let problem: string | null = null;
    let webhookProblem: string | null = null;
    let subscribed: string[] = [];
    let accountStatus: AccountStatus = account.account_status;
    let username = account.ig_username;
    let igUserId = account.ig_user_id;

    if (!account.access_token) {
      problem = lastDecryptError
        ? `The stored access token cannot be read: ${lastDecryptError}.`
        : `No access token for this account: connect it through the platform login (node main.js connect-account ${account.id}) or set IG_ACCESS_TOKEN.`;
      accountStatus = 'not_connected';
    } else {
      const client = this.graph.client(account);
      try {
        const me = await client.getAccount();
        username = me.username ?? username;
        igUserId = igUserId ?? me.user_id ?? null;
        accountStatus =
          account.account_status === 'sandbox'
            ? 'sandbox'
            : account.token_expires_at && account.token_expires_at.getTime() < Date.now()
              ? 'token_expired'
              : 'connected';
        try {
          subscribed = await client.getSubscribedFields();
          const missing = REQUIRED_SUBSCRIBED_FIELDS.filter((f) => !subscribed.includes(f));
          if (missing.length) webhookProblem = `Webhook subscription is missing fields: ${missing.join(', ')} (POST /{ig-user-id}/subscribed_apps).`;
        } catch (err) {
          webhookProblem = `Cannot read the webhook subscription: ${describe(err)}`;
        }
      } catch (err) {
        problem = `Social platform API error: ${describe(err)}`;
        if (err instanceof GraphApiError && err.kind === 'auth') accountStatus = 'token_invalid';
      }
    }
    // The periodic subscription check (SubscriptionHealthWorker): what it could not repair, and a
    // re-subscription within the last day (messages of the gap were not delivered).
    const check = account.access_token ? await this.checks.find(account.id) : null;
    if (check?.checked_at) {
      if (webhookProblem && check.problem) webhookProblem += ` Periodic check at ${new Date(check.checked_at).toISOString()}: ${check.problem}`;
      else if (!webhookProblem && check.resubscribed_at && Date.now() - new Date(check.resubscribed_at).getTime() < DAY) {
        webhookProblem = `The webhook subscription had vanished or lost fields and was subscribed again at ${new Date(check.resubscribed_at).toISOString()} by the periodic check; direct messages sent in between were not delivered (comments are recovered by the comment poller).`;
      }
    }
    // A platform error met by the engine while running automations, or by the token scheduler
    // (recorded on the account), shows here for a day unless a newer check found something else.
    const engineProblem =
      (account.last_problem?.startsWith(ENGINE_PROBLEM_PREFIX) || account.last_problem?.startsWith(TOKEN_PROBLEM_PREFIX)) && account.last_problem_at && Date.now() - account.last_problem_at.getTime() < DAY
        ? account.last_problem
        : null;
    if (!problem && engineProblem) problem = engineProblem;
    const changes: Partial<AccountEntity> = {};
    if (accountStatus !== account.account_status) changes.account_status = accountStatus;
    if (username !== account.ig_username) changes.ig_username = username;
    if (igUserId !== account.ig_user_id) changes.ig_user_id = igUserId;
    if (problem !== account.last_problem && problem !== engineProblem) {
      changes.last_problem = problem;
      changes.last_problem_at = problem ? new Date() : null;
    }
    if (Object.keys(changes).length) await this.accounts.update(account.id, changes);

    const [automations, contacts, runCounts, commentPoller] = await Promise.all([
      this.automations.entities(account.id),
      this.contacts.count(account.id),
      this.runs.counts(account.id),
      this.poller.status(account.id),
    ]);
    const limiter = this.graph.limiter(account.id);
    const [callsUsed, privateRepliesUsed, queue, nextPrivateReply] = await Promise.all([
      limiter.calls.count(),
      this.graph.privateReplyBudget(account.id).count(),
      this.inbound.depth(account.id, this.clock.now()),
      this.pacing.nextAt(account.id),
    ]);
    const expires = account.token_expires_at;
    return {
      account_status: accountStatus,
      problem,
      webhook_problem: webhookProblem,
      token_expires_at: expires ? expires.toISOString() : null,
      token_expires_in_days: expires ? Math.floor((expires.getTime() - Date.now()) / DAY) : null,
      token_refreshed_at: account.token_refreshed_at ? account.token_refreshed_at.toISOString() : null,
      account_id: account.id,
      ig_user_id: igUserId,
      username,
      subscribed_fields: subscribed,
      counts: {
        automations: automations.length,
        active_automations: automations.filter(isLive).length,
        draft_automations: automations.filter((a) => a.status === 'draft').length,
        paused_automations: automations.filter((a) => a.status === 'paused').length,
        waiting_for_reel: automations.filter((a) => a.reel_status === 'waiting').length,
        contacts,
        ...runCounts,
      },
      rate_limit: {
        queued: limiter.queued,
        paused_for_ms: limiter.pausedForMs,
        usage_percent: limiter.lastUsage?.percent ?? null,
        calls_last_hour: callsUsed,
        private_replies_last_hour: privateRepliesUsed,
      },
      queue: {
        due: queue.due,
        scheduled: queue.scheduled,
        deferred: queue.deferred,
        oldest_due_at: queue.oldest_due_at ? new Date(queue.oldest_due_at).toISOString() : null,
        next_private_reply_at: nextPrivateReply ? nextPrivateReply.toISOString() : null,
      },
      webhook_checked_at: check?.checked_at ? new Date(check.checked_at).toISOString() : null,
      webhook_resubscribed_at: check?.resubscribed_at ? new Date(check.resubscribed_at).toISOString() : null,
      comment_poller: commentPoller,
      checked_at: new Date().toISOString(),
    };
  }
}
