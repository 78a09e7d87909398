import { extractiveBriefing, recapItems } from './recap';

describe('extractive recap', () => {
  it('lists the emails by priority with a headline', () => {
    const items = recapItems(
      [
        { from: 'a@x.example', subject: 'Lunch', body: 'Lunch next week?' },
        { from: 'b@x.example', subject: 'URGENT: customs hold', body: 'Container CSQU3054383 is held by customs.' },
        { from: 'c@x.example', subject: 'ETA', body: 'What is the ETA of the vessel?' },
      ],
      new Date('2026-11-23T10:00:00Z'),
    );
    expect(items.map((i) => i.priority)).toEqual(['HIGH', 'MEDIUM', 'LOW']);
    const text = extractiveBriefing(items);
    expect(text.split('\n')[0]).toBe('3 emails: 1 high, 1 medium, 1 low priority.');
    expect(text).toContain('[HIGH] CUSTOMS: URGENT: customs hold — Container CSQU3054383 is held by customs. (from b@x.example; CSQU3054383)');
  });
});
