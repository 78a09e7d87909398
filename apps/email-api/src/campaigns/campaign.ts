import type { AudienceChoice } from '../segments/audience';
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
