import { Injectable } from '@nestjs/common';
import type { RunRow } from './run';
import { RunsRepository, type NewRun, type RunPatch, type ServiceAnswers } from './runs.repository';

export type { NewRun, RunPatch, ServiceAnswers } from './runs.repository';

/**
 * Runs (one person going through one automation) and the service's own answers to comments, for
 * the features that read or move them: the engine writes them, posts and status read them.
 * Calls made inside a `Transactions.transaction` join it.
 */
@Injectable()
export class RunsService {
  constructor(private readonly runs: RunsRepository) {}

  /** Creates the run once per trigger (null: it exists). */
  insert(r: NewRun): Promise<RunRow | null> {
    return this.runs.insert(r);
  }

  find(id: string): Promise<RunRow | null> {
    return this.runs.find(id);
  }

  forTrigger(automationId: number, commentId: string | null, messageId: string | null): Promise<RunRow | null> {
    return this.runs.forTrigger(automationId, commentId, messageId);
  }

  hasRun(automationId: number, igId: string): Promise<boolean> {
    return this.runs.hasRun(automationId, igId);
  }

  awaitingEmail(accountId: number, igId: string): Promise<RunRow | null> {
    return this.runs.awaitingEmail(accountId, igId);
  }

  awaitingTapByText(accountId: number, igId: string): Promise<RunRow | null> {
    return this.runs.awaitingTapByText(accountId, igId);
  }

  setTextFallback(runId: string): Promise<void> {
    return this.runs.setTextFallback(runId);
  }

  setUsername(runId: string, username: string): Promise<void> {
    return this.runs.setUsername(runId, username);
  }

  setPublicReplyId(runId: string, replyId: string): Promise<void> {
    return this.runs.setPublicReplyId(runId, replyId);
  }

  /** Stores a transition at the run's version (optimistic lock); false when another worker moved it. */
  update(run: RunRow, patch: RunPatch, at: Date): Promise<boolean> {
    return this.runs.update(run, patch, at);
  }

  awaitingTapReadBy(accountId: number, igId: string, readUpTo: Date): Promise<RunRow | null> {
    return this.runs.awaitingTapReadBy(accountId, igId, readUpTo);
  }

  markRead(runId: string, at: Date): Promise<boolean> {
    return this.runs.markRead(runId, at);
  }

  markTakenOver(accountId: number, igId: string, at: Date): Promise<Array<{ id: string; automation_id: number }>> {
    return this.runs.markTakenOver(accountId, igId, at);
  }

  idsForPerson(accountId: number, igId: string, limit = 50): Promise<string[]> {
    return this.runs.idsForPerson(accountId, igId, limit);
  }

  /** Ends the person's runs that are still going (STOP): the ended runs. */
  endForPerson(accountId: number, igId: string, reason: string): Promise<Array<{ id: string; automation_id: number }>> {
    return this.runs.endForPerson(accountId, igId, reason);
  }

  fail(runId: string, error: string): Promise<void> {
    return this.runs.fail(runId, error);
  }

  counts(accountId: number): Promise<{ runs: number; runs_last_24h: number; events: number }> {
    return this.runs.counts(accountId);
  }

  recordCommentReply(accountId: number, commentId: string, mediaId: string | null, kind: 'public_reply' | 'private_reply', replyId: string | null, runId: string): Promise<void> {
    return this.runs.recordCommentReply(accountId, commentId, mediaId, kind, replyId, runId);
  }

  commentHandled(accountId: number, commentId: string): Promise<boolean> {
    return this.runs.commentHandled(accountId, commentId);
  }

  ownReplyIds(accountId: number, commentId: string): Promise<Set<string>> {
    return this.runs.ownReplyIds(accountId, commentId);
  }

  ownReplyIdsInThread(accountId: number, parentId: string): Promise<Set<string>> {
    return this.runs.ownReplyIdsInThread(accountId, parentId);
  }

  serviceAnswers(accountId: number, commentIds: string[]): Promise<ServiceAnswers> {
    return this.runs.serviceAnswers(accountId, commentIds);
  }
}
