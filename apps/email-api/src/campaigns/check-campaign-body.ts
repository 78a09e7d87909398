import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { DomainsService } from '../domains/domains.service';
import type { Condition } from '../segments/condition';
import { SegmentsService } from '../segments/segments.service';
import { TemplatesService } from '../templates/templates.service';
import type { AbTestConfig } from './ab-test';
import type { CampaignFields } from './campaign';
import type { CampaignInput } from './campaigns.service';

/**
 * Checks a campaign body (create and PUT) against the features it names: the template (its
 * subject, body and from fill what the body leaves out), the sender's verified domain, and the
 * audience (a segment of the project, or a valid condition). Runs in the caller's transaction.
 */
@Injectable()
export class CheckCampaignBody {
  constructor(
    private readonly templates: TemplatesService,
    private readonly domains: DomainsService,
    private readonly segments: SegmentsService,
  ) {}

  async execute(projectId: string, input: CampaignInput): Promise<{ fields: CampaignFields; domainId: string }> {
    const template = input.templateId ? await this.templates.get(projectId, input.templateId) : null;
    const subject = input.subject ?? template?.subject;
    const body = input.body ?? template?.body;
    const from = (input.from ?? template?.from)?.toLowerCase();
    const missing = [...(subject ? [] : ['subject']), ...(body ? [] : ['body']), ...(from ? [] : ['from'])];
    if (missing.length) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
        errors: missing.map((field) => ({ field, message: `${field} is required (or give a templateId that has it)`, code: 'required' })),
        suggestion: 'Give subject, body and from, or a templateId.',
      });
    }
    const domain = await this.domains.requireVerifiedSender(projectId, from!);
    let segmentId: string | null = null;
    let condition: Condition | null = null;
    if (input.audienceType === 'SEGMENT') {
      if (!input.segmentId) throw audienceError('segmentId', 'segmentId is required when audienceType is SEGMENT');
      if (!(await this.segments.existsLocked(projectId, input.segmentId))) throw audienceError('segmentId', 'no segment with this id in the project', 'not_found');
      segmentId = input.segmentId;
    } else if (input.segmentId) throw audienceError('segmentId', 'segmentId is only for audienceType SEGMENT');
    if (input.audienceType === 'FILTERED') {
      if (!input.audienceCondition) throw audienceError('audienceCondition', 'audienceCondition is required when audienceType is FILTERED');
      condition = await this.segments.checkAudienceCondition(projectId, input.audienceCondition, 'audienceCondition');
    } else if (input.audienceCondition) throw audienceError('audienceCondition', 'audienceCondition is only for audienceType FILTERED');
    return {
      domainId: domain.id,
      fields: {
        name: input.name,
        subject: subject!,
        body: body!,
        from: from!,
        templateId: template?.id ?? null,
        audienceType: input.audienceType,
        segmentId,
        audienceCondition: condition,
        abTest: abTestOf(input.abTest),
      },
    };
  }
}

/** The A/B test as stored; a variant must change the subject, the body or both (422 otherwise). */
function abTestOf(input: CampaignInput['abTest']): AbTestConfig | null {
  if (!input) return null;
  const empty = input.variants.flatMap((v, i) => (v.subject === undefined && v.body === undefined ? [i] : []));
  if (empty.length) {
    throw new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', {
      errors: empty.map((i) => ({ field: `abTest.variants.${i}`, message: 'a variant gives subject, body or both', code: 'required' })),
      suggestion: 'Give each variant the subject and/or body it tries instead of the campaign\'s.',
    });
  }
  return {
    variants: input.variants.map((v) => ({ subject: v.subject ?? null, body: v.body ?? null })),
    testShare: input.testShare,
    metric: input.metric,
    waitMinutes: input.waitMinutes,
  };
}

const audienceError = (field: string, message: string, code = 'invalid') =>
  new ApiError(422, 'VALIDATION_ERROR', 'Validation failed', { errors: [{ field, message, code }], suggestion: 'audienceType ALL takes nothing else, SEGMENT a segmentId, FILTERED an audienceCondition.' });
