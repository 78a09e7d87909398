import type { AudienceChoice } from '../segments/audience';
import { variantId, type AbDecision, type AbPhase, type AbTestConfig, type VariantId } from './ab-test';
import type { Condition } from '../segments/condition';

export type CampaignStatus = 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';
export type AudienceType = 'ALL' | 'SEGMENT' | 'FILTERED';

export interface CampaignRow {
  id: string;
  project_id: string;
  domain_id: string;
  template_id: string | null;
  name: string;
  subject: string;
  body: string;
  from_email: string;
  audience_type: AudienceType;
  segment_id: string | null;
  audience_condition: Condition | null;
  status: CampaignStatus;
  scheduled_for: Date | null;
  fanout_done: boolean;
  fanout_after: string | null;
  recipients: number;
  started_at: Date | null;
  finished_at: Date | null;
  cancelled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  ab_test: AbTestConfig | null;
  ab_phase: AbPhase | null;
  ab_audience: number | null;
  ab_test_size: number | null;
  ab_seen: number;
  ab_selected: number;
  ab_due_at: Date | null;
  ab_winner: number | null;
  ab_decision: AbDecision | null;
}

export interface Campaign {
  id: string;
  name: string;
  subject: string;
  body: string;
  from: string;
  templateId: string | null;
  audienceType: AudienceType;
  segmentId: string | null;
  audienceCondition: Condition | null;
  status: CampaignStatus;
  scheduledFor: Date | null;
  recipients: number;
  startedAt: Date | null;
  finishedAt: Date | null;
  cancelledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  abTest: CampaignAbTest | null;
}

/** A campaign's A/B test as the API shows it: the settings, the variants with their ids, where it stands. */
export interface CampaignAbTest {
  variants: Array<{ id: VariantId; subject: string | null; body: string | null }>;
  testShare: number;
  metric: AbTestConfig['metric'];
  waitMinutes: number;
  phase: AbPhase | null;
  testSize: number | null;
  winnerDueAt: Date | null;
  winner: VariantId | null;
}

export function toCampaignAbTest(r: CampaignRow): CampaignAbTest | null {
  if (!r.ab_test) return null;
  return {
    variants: r.ab_test.variants.map((v, i) => ({ id: variantId(i), subject: v.subject, body: v.body })),
    testShare: r.ab_test.testShare,
    metric: r.ab_test.metric,
    waitMinutes: r.ab_test.waitMinutes,
    phase: r.ab_phase,
    testSize: r.ab_test_size,
    winnerDueAt: r.ab_due_at,
    winner: r.ab_winner === null ? null : variantId(r.ab_winner),
  };
}

export function toCampaign(r: CampaignRow): Campaign {
  return {
    id: r.id,
    name: r.name,
    subject: r.subject,
    body: r.body,
    from: r.from_email,
    templateId: r.template_id,
    audienceType: r.audience_type,
    segmentId: r.segment_id,
    audienceCondition: r.audience_condition,
    status: r.status,
    scheduledFor: r.scheduled_for,
    recipients: r.recipients,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    cancelledAt: r.cancelled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    abTest: toCampaignAbTest(r),
  };
}

export interface CampaignFields {
  name: string;
  subject: string;
  body: string;
  from: string;
  templateId: string | null;
  audienceType: AudienceType;
  segmentId: string | null;
  audienceCondition: Condition | null;
  abTest: AbTestConfig | null;
}

export interface CampaignStats {
  recipients: number;
  queued: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  unsubscribed: number;
  failed: number;
  cancelled: number;
}

/** The campaign's audience as the segments service takes it. */
export function audienceOf(r: Pick<CampaignRow, 'audience_type' | 'segment_id' | 'audience_condition'>): AudienceChoice {
  return { type: r.audience_type, segmentId: r.segment_id, condition: r.audience_condition };
}
