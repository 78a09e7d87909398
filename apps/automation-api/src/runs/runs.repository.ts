import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { schemaOfDataSource } from '@platform/database';
import { DataSource } from 'typeorm';

export interface ServiceAnswers {
  /** Comments the service answered (public reply, private reply or a run that sent a DM). */
  answeredComments: Set<string>;
  /** Ids of the public replies the service posted. */
  ownReplyIds: Set<string>;
}

/** Read side of runs and the service's own comment replies (part 2 writes them). */
@Injectable()
export class RunsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  private get s(): string {
    return schemaOfDataSource(this.ds);
  }

  async serviceAnswers(accountId: number, commentIds: string[]): Promise<ServiceAnswers> {
    if (commentIds.length === 0) return { answeredComments: new Set(), ownReplyIds: new Set() };
    const replies: Array<{ comment_id: string; reply_id: string | null }> = await this.ds.query(
      `SELECT comment_id, reply_id FROM ${this.s}.comment_replies WHERE account_id = $1 AND comment_id = ANY($2::text[])`,
      [accountId, commentIds],
    );
    const runs: Array<{ comment_id: string; public_reply_id: string | null }> = await this.ds.query(
      `SELECT comment_id, public_reply_id FROM ${this.s}.runs
        WHERE account_id = $1 AND comment_id = ANY($2::text[])
          AND (dm_sent_at IS NOT NULL OR public_reply_sent_at IS NOT NULL OR link_sent_at IS NOT NULL)`,
      [accountId, commentIds],
    );
    return {
      answeredComments: new Set([...replies.map((r) => r.comment_id), ...runs.map((r) => r.comment_id)]),
      ownReplyIds: new Set(
        [...replies.map((r) => r.reply_id), ...runs.map((r) => r.public_reply_id)].filter((x): x is string => x !== null),
      ),
    };
  }

  async counts(accountId: number): Promise<{ runs: number; runs_last_24h: number; events: number }> {
    const [row] = await this.ds.query(
      `SELECT (SELECT count(*) FROM ${this.s}.runs WHERE account_id = $1)::int AS runs,
              (SELECT count(*) FROM ${this.s}.runs WHERE account_id = $1 AND created_at > now() - interval '24 hours')::int AS runs_last_24h,
              (SELECT count(*) FROM ${this.s}.events WHERE account_id = $1)::int AS events`,
      [accountId],
    );
    return row;
  }
}
