import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { FUNNEL_COUNTERS, type FunnelCounter } from './dto/automation.dto';
import { AutomationEntity, type ReelSuggestion, type Trigger } from './entities/automation.entity';
import type { RunCounters } from './automation.presenter';

export type FunnelCounts = Record<FunnelCounter, number>;

/** Automations: the API's reads and writes, the engine's rule lookups and the next_post reel state. */
@Injectable()
export class AutomationsRepository {
  constructor(private readonly db: Database) {}

  private get repo() {
    return this.db.repository(AutomationEntity);
  }

  private get s(): string {
    return this.db.schema;
  }

  list(accountId: number): Promise<AutomationEntity[]> {
    return this.repo.find({ where: { account_id: accountId }, order: { id: 'ASC' } });
  }

  find(accountId: number, id: number): Promise<AutomationEntity | null> {
    return this.repo.findOne({ where: { account_id: accountId, id } });
  }

  /** By id alone (the engine, holding a run of the automation). */
  findById(id: number): Promise<AutomationEntity | null> {
    return this.repo.findOne({ where: { id } });
  }

  /** Row lock for read-modify-write (status transitions); call inside `db.transaction`. */
  findForUpdate(accountId: number, id: number): Promise<AutomationEntity | null> {
    return this.repo.findOne({ where: { account_id: accountId, id }, lock: { mode: 'pessimistic_write' } });
  }

  /** Automations that answer now: status active, active true, for this trigger. */
  live(accountId: number, trigger: Trigger): Promise<AutomationEntity[]> {
    return this.repo.find({ where: { account_id: accountId, status: 'active', active: true, trigger } });
  }

  build(fields: Partial<AutomationEntity>): AutomationEntity {
    return this.repo.create(fields);
  }

  save(a: AutomationEntity): Promise<AutomationEntity> {
    return this.repo.save(a);
  }

  async remove(accountId: number, id: number): Promise<boolean> {
    const res = await this.repo.delete({ account_id: accountId, id });
    return (res.affected ?? 0) > 0;
  }

  /** The signing secret of customer webhooks, read at delivery time (a changed secret applies to retries). */
  async webhookSecret(id: number): Promise<string | null> {
    const row = await this.db.one<{ webhook_secret: string | null }>(`SELECT webhook_secret FROM ${this.s}.automations WHERE id = $1`, [id]);
    return row?.webhook_secret ?? null;
  }

  /** triggered / link_sent / clicked per automation, from the run rows (runs refused at the start — errors `once_per_user`, `plan_limit`, `opted_out` — never started). */
  async runCounters(accountId: number): Promise<Map<number, RunCounters>> {
    const rows = await this.db.rows<{ automation_id: number; triggered: number; link_sent: number; clicked: number }>(
      `SELECT automation_id, (count(*) FILTER (WHERE NOT (state = 'skipped' AND error IN ('once_per_user', 'plan_limit', 'opted_out', 'human_takeover'))))::int AS triggered, count(link_sent_at)::int AS link_sent, count(clicked_at)::int AS clicked
         FROM ${this.s}.runs WHERE account_id = $1 GROUP BY automation_id`,
      [accountId],
    );
    return new Map(rows.map((r) => [r.automation_id, r]));
  }

  /** Every funnel counter per automation, from the run rows (a step counts when its stamp is set). */
  async funnelCounts(accountId: number, automationId?: number): Promise<Map<number, FunnelCounts>> {
    const params: unknown[] = [accountId];
    let filter = '';
    if (automationId !== undefined) {
      params.push(automationId);
      filter = 'AND automation_id = $2';
    }
    const rows = await this.db.rows<FunnelCounts & { automation_id: number }>(
      `SELECT automation_id,
              (count(*) FILTER (WHERE NOT (state = 'skipped' AND error IN ('once_per_user', 'plan_limit', 'opted_out', 'human_takeover'))))::int AS triggered,
              count(dm_sent_at)::int AS dm_sent,
              count(button_tapped_at)::int AS button_tapped,
              count(gated_at)::int AS gated,
              count(gate_passed_at)::int AS gate_passed,
              count(email_asked_at)::int AS email_asked,
              count(email_captured_at)::int AS email_captured,
              count(email_expired_at)::int AS email_expired,
              count(link_sent_at)::int AS link_sent,
              count(clicked_at)::int AS clicked,
              count(followed_up_at)::int AS followed_up,
              (count(*) FILTER (WHERE state = 'error'))::int AS errors,
              (count(*) FILTER (WHERE state = 'skipped'))::int AS skipped,
              (count(*) FILTER (WHERE state = 'skipped_other_tool'))::int AS skipped_other_tool,
              count(read_fallback_at)::int AS read_fallback,
              (count(*) FILTER (WHERE taken_over_at IS NOT NULL OR (state = 'skipped' AND error = 'human_takeover')))::int AS human_takeover
         FROM ${this.s}.runs WHERE account_id = $1 ${filter} GROUP BY automation_id`,
      params,
    );
    return new Map(
      rows.map((r) => [r.automation_id, Object.fromEntries(FUNNEL_COUNTERS.map((k) => [k, r[k]])) as FunnelCounts]),
    );
  }

  // ── next_post: the reel an automation waits for ───────────────────────────────────────────────

  /**
   * Accounts with next_post automations to look after (waiting for a reel, or attached and not yet
   * backfilled), leased for `leaseSeconds` on the account row so that one replica checks an
   * account per interval.
   */
  async claimReelAccounts(limit: number, leaseSeconds: number): Promise<number[]> {
    const s = this.s;
    const rows = await this.db.claimDue<{ id: number }>({
      table: `${s}.accounts`,
      where: `EXISTS (SELECT 1 FROM ${s}.automations a WHERE a.account_id = ${s}.accounts.id AND a.next_post
                AND (a.reel_status = 'waiting' OR (a.reel_status = 'attached' AND a.reel_backfilled_at IS NULL)))`,
      orderBy: 'id',
      limit,
      lease: { column: 'reel_lease_until', seconds: leaseSeconds },
    });
    return rows.map((r) => r.id);
  }

  /** The account's next_post automations. */
  nextPost(accountId: number): Promise<AutomationEntity[]> {
    return this.repo.find({ where: { account_id: accountId, next_post: true } });
  }

  /** Attaches a waiting automation to its reel (media_ids = [reel]); false when it is no longer waiting. */
  async attachReel(id: number, mediaId: string, at: Date): Promise<boolean> {
    const changed = await this.db.affected(
      `UPDATE ${this.s}.automations SET reel_status = 'attached', reel_media_id = $2, media_ids = jsonb_build_array($2::text), reel_attached_at = $3,
         pending_next = false, reel_suggestion = NULL, updated_at = now()
       WHERE id = $1 AND reel_status = 'waiting'`,
      [id, mediaId, at],
    );
    return changed === 1;
  }

  /** Stores the reel suggestion of a waiting automation; false when it is no longer waiting. */
  async suggestReel(id: number, suggestion: ReelSuggestion): Promise<boolean> {
    const changed = await this.db.affected(
      `UPDATE ${this.s}.automations SET reel_suggestion = $2::jsonb, updated_at = now() WHERE id = $1 AND reel_status = 'waiting'`,
      [id, JSON.stringify(suggestion)],
    );
    return changed === 1;
  }

  /** A waiting automation gives up on its reel; false when it is no longer waiting. */
  async expireReel(id: number, at: Date): Promise<boolean> {
    const changed = await this.db.affected(
      `UPDATE ${this.s}.automations SET reel_status = 'expired', reel_expired_at = $2, pending_next = false, updated_at = now()
       WHERE id = $1 AND reel_status = 'waiting'`,
      [id, at],
    );
    return changed === 1;
  }

  /** Attached next_post automations whose reel comments were not queued yet. */
  reelsToBackfill(accountId: number): Promise<Array<{ id: number; reel_media_id: string }>> {
    return this.db.rows(
      `SELECT id, reel_media_id FROM ${this.s}.automations
        WHERE account_id = $1 AND next_post AND reel_status = 'attached' AND reel_media_id IS NOT NULL AND reel_backfilled_at IS NULL`,
      [accountId],
    );
  }

  async markReelBackfilled(id: number): Promise<void> {
    await this.db.affected(`UPDATE ${this.s}.automations SET reel_backfilled_at = now() WHERE id = $1`, [id]);
  }
}
