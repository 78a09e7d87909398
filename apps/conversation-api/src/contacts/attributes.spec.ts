import { validateAttributes, type AttributeDefinition } from './attributes';

const defs: AttributeDefinition[] = [
  { key: 'plan', type: 'list', values: ['free', 'pro'] },
  { key: 'seats', type: 'number', values: [] },
  { key: 'vip', type: 'boolean', values: [] },
  { key: 'renewal', type: 'date', values: [] },
  { key: 'site', type: 'link', values: [] },
  { key: 'note', type: 'text', values: [] },
];

describe('validateAttributes', () => {
  it('accepts values of their type, and null to clear', () => {
    expect(validateAttributes(defs, { plan: 'pro', seats: 3, vip: false, renewal: '2026-05-01', site: 'https://a.example', note: 'hi' })).toEqual([]);
    expect(validateAttributes(defs, { plan: null, seats: null })).toEqual([]);
  });

  it.each([
    [{ plan: 'gold' }, 'plan must be one of free, pro'],
    [{ seats: '3' }, 'seats must be a number'],
    [{ vip: 'yes' }, 'vip must be true or false'],
    [{ renewal: 'next week' }, 'renewal must be an ISO 8601 date'],
    [{ renewal: '2026-13-45' }, 'renewal must be an ISO 8601 date'],
    [{ site: 'javascript:alert(1)' }, 'site must be an http(s) URL'],
    [{ note: 5 }, 'note must be a text of at most 5000 characters'],
  ])('refuses %j', (patch, message) => {
    expect(validateAttributes(defs, patch)).toEqual([expect.objectContaining({ message, code: 'invalid_type' })]);
  });

  it('refuses undefined keys', () => {
    expect(validateAttributes(defs, { shoe_size: 44 })).toEqual([{ field: 'custom_attributes.shoe_size', message: 'shoe_size is not a defined attribute', code: 'unknown_attribute' }]);
  });
});
