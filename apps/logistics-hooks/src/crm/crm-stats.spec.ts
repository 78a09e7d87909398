import { crmStats, dealState, numberOf, probabilityOf, type CrmData, type CrmObject } from './crm-stats';

const RULES = { wonStages: ['closedwon', 'Won'], lostStages: ['closed lost', 'lost'], closedLeadStatuses: ['converted', 'disqualified', 'closed', 'lost'] };
const NOW = new Date('2026-11-28T12:00:00Z');
const empty: CrmData = { accounts: [], contacts: [], deals: [], leads: [], tasks: [] };
const deal = (id: string, fields: Record<string, unknown>): CrmObject => ({ id, ...fields });

describe('CRM stats', () => {
  it.each([
    [10, 10], ['1,250.50', 1250.5], ['$300', 300], ['', null], ['abc', null], [null, null], [Infinity, null],
  ])('numberOf(%p) = %p', (v, n) => expect(numberOf(v)).toBe(n));

  it.each([
    [{ probability: 0.4 }, 0.4], [{ probability: 40 }, 0.4], [{ win_probability: '25' }, 0.25], [{ probability: -1 }, 0], [{ probability: 150 }, 1], [{}, 0],
  ])('probability of %p = %p', (fields, p) => expect(probabilityOf(deal('d', fields))).toBeCloseTo(p));

  it.each([
    [{ stage: 'closedwon' }, 'won'], [{ stage: 'Closed Won' }, 'won'], [{ dealstage: 'WON' }, 'won'], [{ stage: 'closed_lost' }, 'lost'], [{ stage: 'Lost' }, 'lost'],
    [{ stage: 'negotiation' }, 'open'], [{}, 'open'], [{ stage: { name: 'closed-won' } }, 'won'],
  ])('deal with %p is %s', (fields, state) => expect(dealState(deal('d', fields), RULES)).toBe(state));

  it('computes every figure of the spec', () => {
    const data: CrmData = {
      accounts: [{ id: 'a1' }, { id: 'a2' }],
      contacts: [{ id: 'c1' }, { id: 'c2' }, { id: 'c3' }],
      deals: [
        deal('d1', { amount: 1000, probability: 0.5, stage: 'proposal', owner: 'ana' }),
        deal('d2', { amount: '3000', probability: 20, stage: 'proposal', owner: 'luis' }),
        deal('d3', { amount: 2000, probability: 1, stage: 'negotiation' }),
        deal('d4', { amount: 5000, stage: 'closedwon', owner: 'ana' }),
        deal('d5', { amount: 7000, stage: 'Won', owner: 'ana' }),
        deal('d6', { amount: 400, stage: 'lost' }),
      ],
      leads: [{ id: 'l1', status: 'new', source: 'web' }, { id: 'l2', status: 'Converted', source: 'web' }, { id: 'l3', lead_source: 'referral' }, { id: 'l4', status: 'disqualified' }],
      tasks: [
        { id: 't1', due_date: '2026-11-27', status: 'open' },
        { id: 't2', due_date: '2026-11-27', completed: true },
        { id: 't3', due_date: '2026-12-01' },
        { id: 't4', due: '2026-11-01T00:00:00Z', status: 'Done' },
        { id: 't5' },
      ],
    };
    expect(crmStats(data, RULES, NOW)).toEqual({
      total_pipeline: 6000,
      weighted_pipeline: 3100, // 500 + 600 + 2000
      win_rate_pct: 66.7, // 2 / (2 + 1)
      avg_deal_size: 6000, // (5000 + 7000) / 2
      open_leads: 2,
      overdue_tasks: 1,
      total_accounts: 2,
      total_contacts: 3,
      stage_breakdown: { proposal: { count: 2, amount: 4000 }, negotiation: { count: 1, amount: 2000 }, closedwon: { count: 1, amount: 5000 }, Won: { count: 1, amount: 7000 }, lost: { count: 1, amount: 400 } },
      lead_sources: { web: 2, referral: 1, unknown: 1 },
      pipeline_by_owner: { ana: { count: 1, amount: 1000, weighted: 500 }, luis: { count: 1, amount: 3000, weighted: 600 }, unassigned: { count: 1, amount: 2000, weighted: 2000 } },
    });
  });

  it('has null rates without closed deals and zeros without data', () => {
    expect(crmStats(empty, RULES, NOW)).toEqual({
      total_pipeline: 0, weighted_pipeline: 0, win_rate_pct: null, avg_deal_size: null, open_leads: 0, overdue_tasks: 0,
      total_accounts: 0, total_contacts: 0, stage_breakdown: {}, lead_sources: {}, pipeline_by_owner: {},
    });
    expect(crmStats({ ...empty, deals: [deal('x', { stage: 'lost', amount: 5 })] }, RULES, NOW)).toMatchObject({ win_rate_pct: 0, avg_deal_size: null });
  });

  it('uses the configured won and lost stage names', () => {
    const data = { ...empty, deals: [deal('x', { stage: 'Signed', amount: 10 }), deal('y', { stage: 'Dead', amount: 10 })] };
    expect(crmStats(data, { ...RULES, wonStages: ['signed'], lostStages: ['dead'] }, NOW)).toMatchObject({ win_rate_pct: 50, avg_deal_size: 10, total_pipeline: 0 });
  });
});
