import { EVENT_SAMPLE_SIZE, WorkflowFields, operatorsFor } from './workflow-fields';

const PROJECT = '00000000-0000-4000-8000-0000000000aa';
const WF = '00000000-0000-4000-8000-0000000000bb';
const MAIL = '00000000-0000-4000-8000-000000000002';

function setup() {
  const asked: unknown[] = [];
  const contacts = {
    fields: async () => ({
      totalContacts: 10,
      fields: [
        { field: 'email', path: 'email', standard: true, type: 'string', count: 10, coverage: 100 },
        { field: 'subscribed', path: 'subscribed', standard: true, type: 'boolean', count: 10, coverage: 100 },
        { field: 'createdAt', path: 'createdAt', standard: true, type: 'date', count: 10, coverage: 100 },
        { field: 'plan', path: 'data.plan', standard: false, type: 'string', count: 7, coverage: 70 },
        { field: 'signup date', path: 'data.signup date', standard: false, type: 'date', count: 2, coverage: 20 },
      ],
    }),
  };
  const workflows = {
    eventDataKeys: async (projectId: string, sample: number) => {
      asked.push(['keys', projectId, sample]);
      return [
        { key: 'amount', type: 'number', count: 5, events: ['paid'] },
        { key: 'amount', type: 'string', count: 1, events: ['refunded'] },
        { key: 'a.b', type: 'string', count: 1, events: ['odd'] },
      ];
    },
    mailSteps: async (projectId: string, workflowId: string) => {
      asked.push(['mail', projectId, workflowId]);
      return [{ id: MAIL, type: 'SEND_EMAIL', name: 'Welcome', config: {} }];
    },
  };
  return { fields: new WorkflowFields(contacts as never, workflows as never), asked };
}

describe('WorkflowFields', () => {
  it('lists contact fields, event keys (one per key, most frequent type) and the workflow\'s mail facts', async () => {
    const { fields, asked } = setup();
    const res = await fields.execute(PROJECT, WF);
    expect(res.totalContacts).toBe(10);
    expect(res.eventSampleSize).toBe(EVENT_SAMPLE_SIZE);
    expect(res.fields.map((f) => f.field)).toEqual(['contact.email', 'contact.subscribed', 'contact.data.plan', 'event.amount', `email.${MAIL}.opened`, `email.${MAIL}.clicked`]);
    expect(res.fields.find((f) => f.field === 'event.amount')).toMatchObject({ type: 'number', count: 6, events: ['paid', 'refunded'] });
    expect(res.fields.find((f) => f.field === 'contact.subscribed')!.operators).toEqual(['equals', 'not_equals']);
    expect(asked).toEqual([['keys', PROJECT, EVENT_SAMPLE_SIZE], ['mail', PROJECT, WF]]);
  });

  it('without a workflow: no mail facts', async () => {
    const { fields, asked } = setup();
    expect((await fields.execute(PROJECT)).fields.some((f) => f.source === 'email')).toBe(false);
    expect(asked).toEqual([['keys', PROJECT, EVENT_SAMPLE_SIZE]]);
  });

  it('operators suit the type', () => {
    expect(operatorsFor('boolean')).toEqual(['equals', 'not_equals', 'exists', 'not_exists']);
    expect(operatorsFor('number')).toContain('gte');
    expect(operatorsFor('number')).not.toContain('contains');
    expect(operatorsFor('object')).toEqual(['exists', 'not_exists']);
  });
});
