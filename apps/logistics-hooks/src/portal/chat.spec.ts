import { chatReferences, FAQ, matchFaq, trackingReply } from './chat';

describe('public chat rules', () => {
  it.each([
    ['tracking', 'How can I track my shipment?'],
    ['documents', 'Which documents do you need, packing list and certificate of origin?'],
    ['customs', 'How long does customs clearance take?'],
    ['demurrage', 'What is demurrage and how many free days do I get?'],
    ['payment', 'How do I pay the invoice, bank transfer?'],
    ['contact', 'What are your office hours? I want a human'],
  ])('%s: %p', (topic, message) => {
    expect(matchFaq(message)?.topic).toBe(topic);
  });

  it('every FAQ topic is reachable', () => {
    expect(FAQ.map((f) => f.topic)).toEqual(['tracking', 'documents', 'customs', 'demurrage', 'payment', 'contact']);
  });

  it('has no answer for unrelated questions', () => {
    expect(matchFaq('Tell me a joke about cats')).toBeNull();
  });

  it.each([
    ['Where is CSQU3054383?', ['CSQU3054383']],
    ['status of booking 987654321 please', ['987654321']],
    ['what about MEDUAB123456', ['MEDUAB123456']],
    ['what about XK12345678?', ['XK12345678']],
    ['hello there', []],
  ])('references in %p', (message, refs) => {
    expect(chatReferences(message)).toEqual(refs);
  });

  it('words a tracking answer', () => {
    const reply = trackingReply([
      {
        reference: 'CSQU3054383',
        carrier: 'CMA CGM',
        summary: { kind: 'container', status: 'ATTENTION', found: true, records: 1, open_records: 1, open_categories: ['MISSING_DOCS'], last_update: '2026-11-24T08:00:00.000Z' },
      },
      { reference: '987654321', carrier: null, summary: null },
    ]);
    expect(reply).toBe(
      'CSQU3054383 (CMA CGM): it has an urgent open matter our team is working on. Open topics: missing docs. Last update 2026-11-24.\n987654321: we have no records on it yet.',
    );
  });
});
