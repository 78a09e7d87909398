import type { Transactions } from '@platform/database';
import type { EventContract } from '@platform/messaging';
import type { AbDecision, SamplingState } from '../src/campaigns/ab-test';
import type { CampaignFields, CampaignRow, CampaignStatus } from '../src/campaigns/campaign';
import type { CampaignsRepository } from '../src/campaigns/campaigns.repository';
import { campaignNotFound, type CampaignsService } from '../src/campaigns/campaigns.service';

/** Fakes of the ports the campaign use cases call, for their unit tests. */

export const PROJECT = '00000000-0000-0000-0000-0000000000aa';
export const CAMPAIGN = '00000000-0000-0000-0000-0000000000cc';

/** Transactions that run the function at once and count how often a transaction was opened (and how deep). */
export function fakeTransactions() {
  const state = { opened: 0, open: 0 };
  const transactions = {
    get inTransaction() {
      return state.open > 0;
    },
    transaction: async <T>(fn: () => Promise<T>): Promise<T> => {
      state.opened += 1;
      state.open += 1;
      try {
        return await fn();
      } finally {
        state.open -= 1;
      }
    },
  };
  return { transactions: transactions as unknown as Transactions, state };
}

export function campaignRow(overrides: Partial<CampaignRow> = {}): CampaignRow {
  const at = new Date('2026-01-01T00:00:00Z');
  return {
    id: CAMPAIGN,
    project_id: PROJECT,
    domain_id: 'dom-1',
    template_id: null,
    name: 'Spring',
    subject: 'Hello {{email}}',
    body: '<p>Hi</p>',
    from_email: 'news@brand.test',
    audience_type: 'ALL',
    segment_id: null,
    audience_condition: null,
    status: 'DRAFT',
    scheduled_for: null,
    fanout_done: false,
    fanout_after: null,
    recipients: 0,
    started_at: null,
    finished_at: null,
    cancelled_at: null,
    created_at: at,
    updated_at: at,
    ab_test: null,
    ab_phase: null,
    ab_audience: null,
    ab_test_size: null,
    ab_seen: 0,
    ab_selected: 0,
    ab_due_at: null,
    ab_winner: null,
    ab_decision: null,
    ...overrides,
  };
}

/** CampaignsService.row over one stored row (404 for any other id); `locked` records FOR UPDATE reads. */
export function fakeCampaigns(row: CampaignRow | null, inTx?: () => boolean) {
  const reads: Array<{ id: string; lock: boolean; inTransaction: boolean }> = [];
  const service = {
    row: async (projectId: string, id: string, lock = false) => {
      reads.push({ id, lock, inTransaction: inTx?.() ?? false });
      if (!row || row.project_id !== projectId || row.id !== id) throw campaignNotFound();
      return row;
    },
  };
  return { campaigns: service as unknown as CampaignsService, reads };
}

/** CampaignsRepository writes, recorded; each answers the row as the database would. */
export function fakeCampaignRows(row: CampaignRow | null = null, mailed: string[] = []) {
  const calls: Array<[string, ...unknown[]]> = [];
  const fromFields = (projectId: string, domainId: string, f: CampaignFields, id: string) =>
    campaignRow({
      id,
      project_id: projectId,
      domain_id: domainId,
      template_id: f.templateId,
      name: f.name,
      subject: f.subject,
      body: f.body,
      from_email: f.from,
      audience_type: f.audienceType,
      segment_id: f.segmentId,
      audience_condition: f.audienceCondition,
      ab_test: f.abTest,
    });
  const repo = {
    insert: async (projectId: string, domainId: string, f: CampaignFields) => (calls.push(['insert', projectId, domainId, f]), fromFields(projectId, domainId, f, 'new-id')),
    replace: async (id: string, domainId: string, f: CampaignFields) => (calls.push(['replace', id, domainId, f]), fromFields(row?.project_id ?? PROJECT, domainId, f, id)),
    setStatus: async (id: string, status: CampaignStatus, scheduledFor: Date | null) => (calls.push(['setStatus', id, status, scheduledFor]), campaignRow({ ...row, id, status, scheduled_for: scheduledFor })),
    lockForFanout: async (id: string) => (calls.push(['lockForFanout', id]), row && row.id === id ? row : null),
    advance: async (id: string, after: string | null, written: number, done: boolean, sampling?: SamplingState) =>
      void calls.push(['advance', id, after, written, done, ...(sampling ? [sampling] : [])]),
    mailedContacts: async (id: string, contactIds: string[]) => (calls.push(['mailedContacts', id, contactIds.length]), new Set(contactIds.filter((c) => mailed.includes(c)))),
    startWinner: async (id: string, winner: number, decision: AbDecision) =>
      (calls.push(['startWinner', id, winner, decision]), campaignRow({ ...row, id, ab_phase: 'winner', ab_winner: winner, ab_decision: decision, fanout_after: null, fanout_done: false })),
  };
  return { rows: repo as unknown as CampaignsRepository, calls };
}

/** An Outbox that records what was enqueued (and whether a transaction was open). */
export function fakeOutbox(inTx?: () => boolean) {
  const enqueued: Array<{ type: string; data: unknown; inTransaction: boolean }> = [];
  const outbox = {
    enqueue: async (event: EventContract<unknown>, data: unknown) => void enqueued.push({ type: event.type, data, inTransaction: inTx?.() ?? false }),
  };
  return { outbox: outbox as never, enqueued };
}

/** DomainsService.requireVerifiedSender: verified for the listed domains, else the service's 422. */
export function fakeDomains(verified: string[] = ['brand.test']) {
  const checked: string[] = [];
  return {
    checked,
    domains: {
      requireVerifiedSender: async (_projectId: string, from: string) => {
        checked.push(from);
        const domain = from.split('@')[1];
        if (!verified.includes(domain)) throw Object.assign(new Error(`${domain} is not verified`), { code: 'domain_not_verified' });
        return { id: `dom-${domain}` };
      },
    } as never,
  };
}
