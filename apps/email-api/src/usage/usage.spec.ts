import { conditionField, placeholderPattern } from './usage';

describe('usage patterns', () => {
  const matches = (field: string, text: string) => new RegExp(placeholderPattern(field)).test(text);

  it('finds the placeholders of a field, with or without data., nested paths and defaults', () => {
    expect(matches('plan', 'Hi {{plan}}')).toBe(true);
    expect(matches('plan', 'Hi {{ data.plan ?? "free" }}')).toBe(true);
    expect(matches('plan', 'Hi {{data.plan.tier}}')).toBe(true);
    expect(matches('plan', 'Hi {{planned}} {{data.plans}} {{x.plan}}')).toBe(false);
    expect(matches('a.b', '{{a.b}}')).toBe(true);
    expect(matches('a.b', '{{aXb}}')).toBe(false);
  });

  it('names condition fields', () => {
    expect(conditionField({ kind: 'field', name: 'plan' })).toBe('data.plan');
    expect(conditionField({ kind: 'event', name: 'signed_up' })).toBe('event.signed_up');
  });
});
