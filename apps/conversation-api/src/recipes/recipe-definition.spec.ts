import { checkDefinition, unsafePattern } from './recipe-definition';

describe('recipe definitions', () => {
  it('accepts a complete recipe and fills in match', () => {
    const { definition, errors } = checkDefinition(
      {
        trigger: 'conversation_created',
        conditions: [{ type: 'business_hours', within: false }, { type: 'channel', channel_ids: ['9D2F0C3E-4B7A-4F51-9A43-1C2D3E4F5A6B'] }],
        actions: [{ type: 'out_of_office_reply' }, { type: 'assign_team', team_id: '9d2f0c3e-4b7a-4f51-9a43-1c2d3e4f5a6b', cap: 3 }, { type: 'webhook', url: 'https://hooks.example.com/x' }],
      },
      { complete: true },
    );
    expect(errors).toEqual([]);
    expect(definition?.match).toBe('all');
    expect(definition?.conditions[1]).toEqual({ type: 'channel', channel_ids: ['9d2f0c3e-4b7a-4f51-9a43-1c2d3e4f5a6b'] });
  });

  it('accepts an incomplete draft but not for publishing', () => {
    expect(checkDefinition({ trigger: null, conditions: [], actions: [] }).errors).toEqual([]);
    expect(checkDefinition({}, { complete: true }).errors.map((e) => e.field)).toEqual(['trigger', 'actions']);
  });

  it('names each bad node by its path', () => {
    const { errors } = checkDefinition({
      match: 'some',
      conditions: [{ type: 'contact_attribute', key: 'plan', operator: 'equals' }, { type: 'contact_attribute', key: 'plan', operator: 'present', value: 1 }],
      actions: [{ type: 'set_priority', priority: 'highest' }, { type: 'webhook', url: 'http://169.254.169.254/latest' }, { type: 'webhook', url: 'ftp://example.com' }, { type: 'assign_team', team_id: '9d2f0c3e-4b7a-4f51-9a43-1c2d3e4f5a6b', round_robin: false, cap: 2 }],
    });
    expect(errors.map((e) => e.field)).toEqual(['match', 'conditions[0].value', 'conditions[1].value', 'actions[0].priority', 'actions[1].url', 'actions[2].url', 'actions[3].cap']);
    expect(checkDefinition([]).errors).toEqual([{ field: 'body', message: expect.any(String), code: 'invalid_type' }]);
    expect(checkDefinition({ conditions: new Array(21).fill({ type: 'status', statuses: ['open'] }) }).errors.map((e) => e.field)).toEqual(['conditions']);
  });

  it.each([
    ['(a+)+$', true],
    ['(a|aa)*', true],
    ['(\\w+\\s?)*$', true],
    ['(x)\\1', true],
    ['[', true],
    ['^invoice #\\d+$', false],
    ['(refund|chargeback)', false],
    ['(ab)+', false],
  ])('pattern %s unsafe: %s', (pattern, unsafe) => {
    expect(unsafePattern(pattern) !== null).toBe(unsafe);
  });
});
