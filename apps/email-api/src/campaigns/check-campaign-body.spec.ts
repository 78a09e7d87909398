import type { Condition } from '../segments/condition';
import { ConditionError } from '../segments/condition';
import { PROJECT, fakeDomains } from '../../test/campaign-fakes';
import { CheckCampaignBody } from './check-campaign-body';
import type { CampaignInput } from './campaigns.service';

const SEGMENT = '00000000-0000-0000-0000-0000000000ee';
const condition: Condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

function setup() {
  const { domains, checked } = fakeDomains(['brand.test']);
  const templates = {
    get: async (_projectId: string, id: string) => {
      if (id !== 'tpl-1') throw Object.assign(new Error('Template not found'), { code: 'TEMPLATE_NOT_FOUND' });
      return { id, subject: 'From template', body: '<p>template</p>', from: 'Team@Brand.test' };
    },
  };
  const segmentCalls: Array<[string, ...unknown[]]> = [];
  const segments = {
    existsLocked: async (_projectId: string, id: string) => (segmentCalls.push(['existsLocked', id]), id === SEGMENT),
    checkAudienceCondition: async (_projectId: string, input: unknown, path: string) => {
      segmentCalls.push(['checkAudienceCondition', input, path]);
      if ((input as Condition).logic !== 'AND' && (input as Condition).logic !== 'OR') throw new ConditionError(`${path}.logic must be AND or OR`);
      return input as Condition;
    },
  };
  return { check: new CheckCampaignBody(templates as never, domains, segments as never), checked, segmentCalls };
}

const base: CampaignInput = { name: 'Spring', subject: 'Hi', body: '<p>x</p>', from: 'News@Brand.test', audienceType: 'ALL' };

describe('CheckCampaignBody', () => {
  it('answers the fields and the sender domain (from lower-cased) of an ALL audience', async () => {
    const { check, checked } = setup();
    await expect(check.execute(PROJECT, base)).resolves.toEqual({
      domainId: 'dom-brand.test',
      fields: { name: 'Spring', subject: 'Hi', body: '<p>x</p>', from: 'news@brand.test', templateId: null, audienceType: 'ALL', segmentId: null, audienceCondition: null, abTest: null },
    });
    expect(checked).toEqual(['news@brand.test']);
  });

  it('fills subject, body and from from the template where the body leaves them out', async () => {
    const { check } = setup();
    const { fields } = await check.execute(PROJECT, { name: 'T', templateId: 'tpl-1', subject: 'Own subject', audienceType: 'ALL' });
    expect(fields).toMatchObject({ subject: 'Own subject', body: '<p>template</p>', from: 'team@brand.test', templateId: 'tpl-1' });
  });

  it('lists every missing field in one 422', async () => {
    const { check } = setup();
    await expect(check.execute(PROJECT, { name: 'x', audienceType: 'ALL' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: ['subject', 'body', 'from'].map((field) => ({ field, message: `${field} is required (or give a templateId that has it)`, code: 'required' })),
    });
  });

  it('refuses a sender that is not on a verified domain', async () => {
    const { check } = setup();
    await expect(check.execute(PROJECT, { ...base, from: 'x@other.test' })).rejects.toMatchObject({ code: 'domain_not_verified' });
  });

  it('takes a segment of the project (locked against deletion) for SEGMENT', async () => {
    const { check, segmentCalls } = setup();
    const { fields } = await check.execute(PROJECT, { ...base, audienceType: 'SEGMENT', segmentId: SEGMENT });
    expect(fields).toMatchObject({ audienceType: 'SEGMENT', segmentId: SEGMENT, audienceCondition: null });
    expect(segmentCalls).toEqual([['existsLocked', SEGMENT]]);
  });

  it.each([
    [{ audienceType: 'SEGMENT' }, 'segmentId', 'segmentId is required when audienceType is SEGMENT', 'invalid'],
    [{ audienceType: 'SEGMENT', segmentId: '00000000-0000-0000-0000-000000000001' }, 'segmentId', 'no segment with this id in the project', 'not_found'],
    [{ audienceType: 'ALL', segmentId: SEGMENT }, 'segmentId', 'segmentId is only for audienceType SEGMENT', 'invalid'],
    [{ audienceType: 'FILTERED' }, 'audienceCondition', 'audienceCondition is required when audienceType is FILTERED', 'invalid'],
    [{ audienceType: 'SEGMENT', segmentId: SEGMENT, audienceCondition: condition }, 'audienceCondition', 'audienceCondition is only for audienceType FILTERED', 'invalid'],
  ])('refuses an audience that does not fit its type: %j', async (audience, field, message, code) => {
    const { check } = setup();
    await expect(check.execute(PROJECT, { ...base, ...(audience as Partial<CampaignInput>) })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field, message, code }] });
  });

  it('keeps an A/B test with each variant\'s overrides (null: the campaign\'s)', async () => {
    const { check } = setup();
    const { fields } = await check.execute(PROJECT, { ...base, abTest: { variants: [{ subject: 'Hi A' }, { body: '<p>B</p>' }, { subject: 'C', body: '<p>C</p>' }], testShare: 20, metric: 'clicks', waitMinutes: 60 } });
    expect(fields.abTest).toEqual({
      variants: [{ subject: 'Hi A', body: null }, { subject: null, body: '<p>B</p>' }, { subject: 'C', body: '<p>C</p>' }],
      testShare: 20,
      metric: 'clicks',
      waitMinutes: 60,
    });
  });

  it('refuses A/B variants that change nothing, naming each', async () => {
    const { check } = setup();
    await expect(check.execute(PROJECT, { ...base, abTest: { variants: [{ subject: 'A' }, {}, {}], testShare: 10, metric: 'opens', waitMinutes: 5 } })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [1, 2].map((i) => ({ field: `abTest.variants.${i}`, message: 'a variant gives subject, body or both', code: 'required' })),
    });
  });

  it('has the segments service check a FILTERED condition under the field audienceCondition', async () => {
    const { check, segmentCalls } = setup();
    const { fields } = await check.execute(PROJECT, { ...base, audienceType: 'FILTERED', audienceCondition: condition as unknown as Record<string, unknown> });
    expect(fields).toMatchObject({ audienceType: 'FILTERED', segmentId: null, audienceCondition: condition });
    expect(segmentCalls).toEqual([['checkAudienceCondition', condition, 'audienceCondition']]);
    await expect(check.execute(PROJECT, { ...base, audienceType: 'FILTERED', audienceCondition: { logic: 'XOR' } })).rejects.toMatchObject({ code: 'INVALID_CONDITION' });
  });
});
