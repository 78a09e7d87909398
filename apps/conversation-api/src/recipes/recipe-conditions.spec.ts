import { conditionsHold, holds, type ConditionContext } from './recipe-conditions';
import type { Condition } from './recipe-definition';

const CHANNEL = '9d2f0c3e-4b7a-4f51-9a43-1c2d3e4f5a6b';
const base: ConditionContext = {
  text: 'Hello, my INVOICE #42 is wrong',
  messageType: 'incoming',
  channelId: CHANNEL,
  contact: { plan: 'Pro', seats: 3, vip: true, name: 'Kim Lee', email: null },
  labels: ['Billing'],
  priority: null,
  status: 'open',
  at: new Date('2026-10-26T08:30:00Z'),
  timeZone: 'Europe/Berlin',
  businessHours: { monday: { open: '09:00', close: '17:00' } },
};

describe('recipe conditions', () => {
  it.each<[string, Condition, Partial<ConditionContext>, boolean]>([
    ['text contains, any case', { type: 'text_contains', value: 'invoice' }, {}, true],
    ['text contains, case-sensitive', { type: 'text_contains', value: 'invoice', case_sensitive: true }, {}, false],
    ['text contains without a message', { type: 'text_contains', value: 'invoice' }, { text: null }, false],
    ['text matches', { type: 'text_matches', pattern: '#\\d+' }, {}, true],
    ['text matches, case-insensitive by default', { type: 'text_matches', pattern: '^hello' }, {}, true],
    ['text matches, case-sensitive', { type: 'text_matches', pattern: '^HELLO', case_sensitive: true }, {}, false],
    ['channel among', { type: 'channel', channel_ids: [CHANNEL] }, {}, true],
    ['channel not among', { type: 'channel', channel_ids: ['00000000-0000-4000-8000-000000000000'] }, {}, false],
    ['attribute equals (any case)', { type: 'contact_attribute', key: 'plan', operator: 'equals', value: 'pro' }, {}, true],
    ['attribute equals a number', { type: 'contact_attribute', key: 'seats', operator: 'equals', value: 3 }, {}, true],
    ['attribute equals a boolean', { type: 'contact_attribute', key: 'vip', operator: 'equals', value: true }, {}, true],
    ['attribute not_equals a missing one', { type: 'contact_attribute', key: 'tier', operator: 'not_equals', value: 'gold' }, {}, true],
    ['attribute contains', { type: 'contact_attribute', key: 'name', operator: 'contains', value: 'lee' }, {}, true],
    ['attribute present', { type: 'contact_attribute', key: 'plan', operator: 'present' }, {}, true],
    ['attribute absent (null)', { type: 'contact_attribute', key: 'email', operator: 'absent' }, {}, true],
    ['label has (any case)', { type: 'label', operator: 'has', label: 'billing' }, {}, true],
    ['label lacks', { type: 'label', operator: 'lacks', label: 'vip' }, {}, true],
    ['priority none', { type: 'priority', priorities: ['none'] }, {}, true],
    ['priority high', { type: 'priority', priorities: ['high', 'urgent'] }, { priority: 'urgent' }, true],
    ['priority not among', { type: 'priority', priorities: ['high'] }, { priority: 'low' }, false],
    ['status', { type: 'status', statuses: ['resolved'] }, {}, false],
    ['message type incoming', { type: 'message_type', message_types: ['incoming'] }, {}, true],
    ['message type without a message', { type: 'message_type', message_types: ['incoming', 'outgoing'] }, { messageType: null }, false],
    // 2026-10-26 08:30 UTC: Monday 09:30 in Berlin (CET, after the change of 25 October).
    ['within business hours after the DST change', { type: 'business_hours', within: true }, {}, true],
    // 2026-10-19 07:30 UTC: Monday 09:30 in Berlin too (CEST, UTC+2), a week earlier.
    ['within business hours before the DST change', { type: 'business_hours', within: true }, { at: new Date('2026-10-19T07:30:00Z') }, true],
    // The same UTC time of day, 07:30, is 08:30 local after the change: closed.
    ['outside business hours after the DST change', { type: 'business_hours', within: false }, { at: new Date('2026-10-26T07:30:00Z') }, true],
    ['no hours set: always within', { type: 'business_hours', within: true }, { businessHours: null, at: new Date('2026-10-25T03:00:00Z') }, true],
  ])('%s', (_name, condition, ctx, expected) => {
    expect(holds(condition, { ...base, ...ctx })).toBe(expected);
  });

  it('combines with all or any', () => {
    const conditions: Condition[] = [
      { type: 'text_contains', value: 'invoice' },
      { type: 'label', operator: 'has', label: 'vip' },
    ];
    expect(conditionsHold({ match: 'all', conditions }, base)).toBe(false);
    expect(conditionsHold({ match: 'any', conditions }, base)).toBe(true);
    expect(conditionsHold({ match: 'all', conditions: [] }, base)).toBe(true);
  });

  it('reads at most 4096 characters of text', () => {
    expect(holds({ type: 'text_contains', value: 'needle' }, { ...base, text: `${'x'.repeat(5000)}needle` })).toBe(false);
  });
});
