import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import type { AbDecision, AbGroupCounts, SamplingState } from './ab-test';
import type { CampaignFields, CampaignRow, CampaignStats, CampaignStatus } from './campaign';

@Injectable()
export class CampaignsRepository {
  constructor(private readonly db: Database) {}

  private get table(): string {
    return this.db.table('campaigns');
  }

  async insert(projectId: string, domainId: string, c: CampaignFields): Promise<CampaignRow> {
    return (await this.db.one<CampaignRow>(
      `INSERT INTO ${this.table} (project_id, domain_id, template_id, name, subject, body, from_email, audience_type, segment_id, audience_condition, ab_test)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb) RETURNING *`,
      [projectId, domainId, c.templateId, c.name, c.subject, c.body, c.from, c.audienceType, c.segmentId, c.audienceCondition ? JSON.stringify(c.audienceCondition) : null, c.abTest ? JSON.stringify(c.abTest) : null],
    ))!;
  }

  async replace(id: string, domainId: string, c: CampaignFields): Promise<CampaignRow> {
    return (await this.db.one<CampaignRow>(
      `UPDATE ${this.table} SET domain_id = $2, template_id = $3, name = $4, subject = $5, body = $6, from_email = $7, audience_type = $8, segment_id = $9,
              audience_condition = $10::jsonb, ab_test = $11::jsonb, updated_at = now() WHERE id = $1 RETURNING *`,
      [id, domainId, c.templateId, c.name, c.subject, c.body, c.from, c.audienceType, c.segmentId, c.audienceCondition ? JSON.stringify(c.audienceCondition) : null, c.abTest ? JSON.stringify(c.abTest) : null],
    ))!;
  }

  /** Page-based list, newest first. */
  async page(projectId: string, limit: number, offset: number, status?: CampaignStatus): Promise<{ rows: CampaignRow[]; total: number }> {
    const where = `project_id = $1${status ? ' AND status = $2' : ''}`;
    const params = status ? [projectId, status] : [projectId];
    const [rows, count] = await Promise.all([
      this.db.rows<CampaignRow>(`SELECT * FROM ${this.table} WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`, params),
      this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE ${where}`, params),
    ]);
    return { rows, total: count!.n };
  }

  findById(projectId: string, id: string, lock = false): Promise<CampaignRow | null> {
    return this.db.one<CampaignRow>(`SELECT * FROM ${this.table} WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [projectId, id]);
  }

  /** The campaign row locked for one fan-out batch (no project check: the event names it). */
  lockForFanout(id: string): Promise<CampaignRow | null> {
    return this.db.one<CampaignRow>(`SELECT * FROM ${this.table} WHERE id = $1 FOR UPDATE`, [id]);
  }

  async delete(id: string): Promise<void> {
    await this.db.affected(`DELETE FROM ${this.table} WHERE id = $1`, [id]);
  }

  /** The new status; a campaign with an A/B test starts SENDING in its `testing` phase. */
  async setStatus(id: string, status: CampaignStatus, scheduledFor: Date | null): Promise<CampaignRow> {
    return (await this.db.one<CampaignRow>(
      `UPDATE ${this.table} SET status = $2, scheduled_for = $3, updated_at = now(),
              started_at = CASE WHEN $2 = 'SENDING' THEN now() ELSE started_at END,
              ab_phase = CASE WHEN $2 = 'SENDING' AND ab_test IS NOT NULL THEN coalesce(ab_phase, 'testing') ELSE ab_phase END,
              cancelled_at = CASE WHEN $2 = 'CANCELLED' THEN now() ELSE cancelled_at END
        WHERE id = $1 RETURNING *`,
      [id, status, scheduledFor],
    ))!;
  }

  /**
   * After a fan-out batch: the cursor moves on, the recipients add up, the last batch ends the
   * fan-out; in an A/B test's `testing` phase the drawing of the test group moves with them.
   */
  async advance(id: string, after: string | null, written: number, done: boolean, sampling?: SamplingState): Promise<void> {
    await this.db.affected(
      `UPDATE ${this.table} SET fanout_after = coalesce($2, fanout_after), recipients = recipients + $3, fanout_done = $4, updated_at = now(),
              ab_audience = coalesce($5, ab_audience), ab_test_size = coalesce($6, ab_test_size), ab_seen = coalesce($7, ab_seen), ab_selected = coalesce($8, ab_selected)
        WHERE id = $1`,
      [id, after, written, done, sampling?.audience ?? null, sampling?.testSize ?? null, sampling?.seen ?? null, sampling?.selected ?? null],
    );
  }

  /**
   * The winner of an A/B test is picked: the `winner` phase, and the fan-out walks the audience
   * again from its start (the test group's contacts have their mail and are skipped). One
   * statement, in the caller's transaction with the first fan-out message.
   */
  async startWinner(id: string, winner: number, decision: AbDecision): Promise<CampaignRow> {
    return (await this.db.one<CampaignRow>(
      `UPDATE ${this.table} SET ab_phase = 'winner', ab_winner = $2, ab_decision = $3::jsonb, fanout_after = NULL, fanout_done = false, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, winner, JSON.stringify(decision)],
    ))!;
  }

  /**
   * A/B tests whose test mails all left (the test group written and none QUEUED or SENDING): the
   * `waiting` phase, the winner due `waitMinutes` from now.
   */
  startAbWaits(): Promise<Array<{ id: string; ab_due_at: Date }>> {
    return this.db.rows(
      `UPDATE ${this.table} c SET ab_phase = 'waiting', ab_due_at = now() + make_interval(mins => (c.ab_test->>'waitMinutes')::int), updated_at = now()
        WHERE c.status = 'SENDING' AND c.ab_phase = 'testing' AND c.fanout_done
          AND NOT EXISTS (SELECT 1 FROM ${this.db.table('emails')} e WHERE e.campaign_id = c.id AND e.status IN ('QUEUED', 'SENDING'))
        RETURNING c.id, c.ab_due_at`,
    );
  }

  /** A/B tests whose wait is over, claimed by one replica at a time. */
  claimAbDue(limit: number): Promise<CampaignRow[]> {
    return this.db.claimDue<CampaignRow>({
      table: this.table,
      where: `status = 'SENDING' AND ab_phase = 'waiting' AND ab_due_at <= now()`,
      orderBy: 'ab_due_at ASC',
      limit,
      lease: { column: 'claimed_until', seconds: 30 },
    });
  }

  /** Of these contacts, those that have the campaign's mail already. */
  async mailedContacts(campaignId: string, contactIds: string[]): Promise<Set<string>> {
    if (!contactIds.length) return new Set();
    const rows = await this.db.rows<{ contact_id: string }>(
      `SELECT contact_id FROM ${this.db.table('emails')} WHERE campaign_id = $1 AND contact_id = ANY($2::text[])`,
      [campaignId, contactIds],
    );
    return new Set(rows.map((r) => r.contact_id));
  }

  /**
   * An A/B campaign's mails by group (each variant's test mails, the rest), with the mails opened
   * and clicked by a person (the mail's `opened_at` and `clicked_at` are stamped by unflagged
   * opens and human clicks only).
   */
  abGroups(id: string): Promise<AbGroupCounts[]> {
    return this.db.rows<AbGroupCounts>(
      `SELECT e.ab_variant AS variant,
              count(*)::int AS recipients,
              count(*) FILTER (WHERE e.status = 'SENT')::int AS sent,
              count(*) FILTER (WHERE e.status = 'SENT' AND e.bounced_at IS NULL)::int AS delivered,
              count(*) FILTER (WHERE e.status = 'SENT' AND e.bounced_at IS NULL AND e.opened_at IS NOT NULL)::int AS opened,
              count(*) FILTER (WHERE e.status = 'SENT' AND e.bounced_at IS NULL AND e.clicked_at IS NOT NULL)::int AS clicked
         FROM ${this.db.table('emails')} e WHERE e.campaign_id = $1 GROUP BY e.ab_variant`,
      [id],
    );
  }

  /**
   * Campaigns the scheduler must move: SCHEDULED ones whose time came, and SENDING ones whose fan-out
   * stalled (its message lost or dead-lettered): claimed by one replica at a time.
   */
  claimDue(limit: number, stalledSeconds: number): Promise<CampaignRow[]> {
    return this.db.claimDue<CampaignRow>({
      table: this.table,
      where: `(status = 'SCHEDULED' AND scheduled_for <= now()) OR (status = 'SENDING' AND NOT fanout_done AND updated_at < now() - make_interval(secs => $1::int))`,
      params: [stalledSeconds],
      orderBy: 'coalesce(scheduled_for, created_at) ASC',
      limit,
      lease: { column: 'claimed_until', seconds: 30 },
    });
  }

  /**
   * SENDING → SENT for every campaign whose fan-out is done and which has no mail pending (shrunk
   * audiences too); an A/B campaign only once its winner's fan-out is done.
   */
  async finishSent(): Promise<Array<{ id: string }>> {
    return this.db.rows<{ id: string }>(
      `UPDATE ${this.table} c SET status = 'SENT', finished_at = now(), updated_at = now()
        WHERE c.status = 'SENDING' AND c.fanout_done AND (c.ab_phase IS NULL OR c.ab_phase = 'winner')
          AND NOT EXISTS (SELECT 1 FROM ${this.db.table('emails')} e WHERE e.campaign_id = c.id AND e.status IN ('QUEUED', 'SENDING'))
        RETURNING c.id`,
    );
  }

  async stats(id: string): Promise<CampaignStats> {
    const row = await this.db.one<CampaignStats>(
      `SELECT count(*)::int AS recipients,
              count(*) FILTER (WHERE e.status IN ('QUEUED', 'SENDING'))::int AS queued,
              count(*) FILTER (WHERE e.status = 'SENT')::int AS sent,
              count(*) FILTER (WHERE e.status = 'SENT' AND e.bounced_at IS NULL)::int AS delivered,
              count(e.opened_at)::int AS opened,
              count(e.clicked_at)::int AS clicked,
              count(*) FILTER (WHERE e.bounced_at IS NOT NULL)::int AS bounced,
              count(e.complained_at)::int AS complained,
              count(*) FILTER (WHERE e.sent_at IS NOT NULL AND EXISTS (
                SELECT 1 FROM ${this.db.table('events')} ev WHERE ev.contact_id = e.contact_id AND ev.name = 'contact.unsubscribed' AND ev.created_at >= e.sent_at))::int AS unsubscribed,
              count(*) FILTER (WHERE e.status = 'FAILED')::int AS failed,
              count(*) FILTER (WHERE e.status = 'CANCELLED')::int AS cancelled
         FROM ${this.db.table('emails')} e WHERE e.campaign_id = $1`,
      [id],
    );
    return row!;
  }

  /**
   * Campaigns whose subject or body matches the placeholder pattern (null: not looked at) or whose
   * audience condition names the condition field (or a path below it).
   */
  async referencing(projectId: string, pattern: string | null, field: string): Promise<Array<{ id: string; name: string; where: string[] }>> {
    return this.db.rows(
      `SELECT id, name, where_ AS where FROM (
         SELECT id, name, array_remove(ARRAY[
                  CASE WHEN $2::text IS NOT NULL AND subject ~ $2 THEN 'subject' END,
                  CASE WHEN $2::text IS NOT NULL AND body ~ $2 THEN 'body' END,
                  CASE WHEN audience_condition IS NOT NULL AND jsonb_path_exists(audience_condition, '$.** ? (@.field == $f || @.field starts with $p)', jsonb_build_object('f', $3::text, 'p', $3::text || '.')) THEN 'audienceCondition' END
                ], NULL) AS where_
           FROM ${this.table} WHERE project_id = $1
       ) c WHERE cardinality(where_) > 0 ORDER BY name, id`,
      [projectId, pattern, field],
    );
  }
}
