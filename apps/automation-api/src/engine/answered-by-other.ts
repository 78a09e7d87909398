import { Injectable } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { GraphService } from '../graph/graph.service';
import type { RunRow } from '../runs/run';
import { RunsService } from '../runs/runs.service';
import { graphTime, mentions } from './engine-helpers';
import { SendsRepository } from './sends.repository';

/**
 * skip_if_answered: whether the account already answered the run's comment itself (not through the
 * service) before the run sent anything. `accountId` is the account's platform id.
 */
@Injectable()
export class AnsweredByOther {
  constructor(
    private readonly graph: GraphService,
    private readonly runs: RunsService,
    private readonly sends: SendsRepository,
  ) {}

  /** False once the run sent something (its own answers are not "another's"). */
  async execute(account: AccountEntity, run: RunRow, accountId: string | null): Promise<boolean> {
    if (await this.sends.any(run.id)) return false;
    return run.parent_comment_id ? this.replyAnswered(account, run, accountId) : this.commentAnswered(account, run.comment_id!, accountId);
  }

  /** A top-level comment: a reply under it from the account that the service did not post. */
  private async commentAnswered(account: AccountEntity, commentId: string, accountId: string | null): Promise<boolean> {
    const comment = await this.graph.client(account, 'background').getComment(commentId);
    const own = await this.runs.ownReplyIds(account.id, commentId);
    return (comment.replies?.data ?? []).some((r) => r.from?.id === accountId && !own.has(r.id));
  }

  /**
   * A comment that is itself a reply. The platform keeps one level of replies: an answer to a reply
   * is posted under the same top-level comment and addresses its author with an @mention (what the
   * app pre-fills). So the reply counts as answered when the parent's replies hold one from the
   * account that the service did not post (none of the thread's own replies), that @mentions the
   * reply's author, and that is not older than the reply.
   */
  private async replyAnswered(account: AccountEntity, run: RunRow, accountId: string | null): Promise<boolean> {
    const parent = await this.graph.client(account, 'background').getComment(run.parent_comment_id!);
    const replies = parent.replies?.data ?? [];
    const trigger = replies.find((r) => r.id === run.comment_id);
    const username = run.username ?? trigger?.from?.username ?? null;
    if (!username) return false; // an answer cannot be told apart from answers to other replies
    const own = await this.runs.ownReplyIdsInThread(account.id, run.parent_comment_id!);
    const since = graphTime(trigger?.timestamp);
    return replies.some(
      (r) =>
        r.id !== run.comment_id &&
        r.from?.id === accountId &&
        !own.has(r.id) &&
        mentions(r.text ?? '', username) &&
        (since === null || (graphTime(r.timestamp) ?? since) >= since),
    );
  }
}
