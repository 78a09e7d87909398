import { buildFaq, chatReferences, matchFaq, trackingReply } from './chat';

const FAQ = buildFaq({ currencies: 'MXN or USD', taxRatePct: 16, clearanceTime: '1 to 3 business days', inspectionTime: '1 to 2 days', officeHours: 'Monday to Friday, 9:00 to 18:00' });

describe('public chat rules', () => {
  it.each([
    ['tracking', 'How can I track my shipment?'],
    ['documents', 'Which documents do you need, packing list and certificate of origin?'],
    ['customs', 'How long does customs clearance take?'],
    ['demurrage', 'What is demurrage and how many free days do I get?'],
    ['payment', 'How do I pay the invoice, bank transfer?'],
    ['contact', 'What are your office hours? I want a human'],
  ])('%s: %p', (topic, message) => {
    expect(matchFaq(FAQ, message)?.topic).toBe(topic);
  });

  it('every FAQ topic is reachable', () => {
    expect(FAQ.map((f) => f.topic)).toEqual(['tracking', 'documents', 'customs', 'demurrage', 'payment', 'contact']);
  });

  it.each([
    ['customs', { taxRatePct: 8, clearanceTime: '2 business days' }, ['8 percent', '2 business days']],
    ['payment', { currencies: 'EUR' }, ['in EUR']],
    ['contact', { officeHours: 'every day, 8:00 to 20:00' }, ['every day, 8:00 to 20:00']],
  ] as const)('words the %s answer from the configured facts', (topic, facts, phrases) => {
    const faq = buildFaq({ currencies: 'MXN or USD', taxRatePct: 16, clearanceTime: '1 to 3 business days', inspectionTime: '1 to 2 days', officeHours: 'x', ...facts });
    const answer = faq.find((f) => f.topic === topic)!.answer;
    for (const p of phrases) expect(answer).toContain(p);
  });

  it('has no answer for unrelated questions', () => {
    expect(matchFaq(FAQ, 'Tell me a joke about cats')).toBeNull();
  });

  it.each([
    ['Where is CSQU3054383?', ['CSQU3054383']],
    ['status of booking 987654321 please', ['987654321']],
    ['what about MEDUAB123456', ['MEDUAB123456']],
    ['what about XK12345678?', []],
    ['is CSQU3054384 there?', []],
    ['hello there', []],
  ])('looks up only well-formed references in %p', (message, refs) => {
    expect(chatReferences(message)).toEqual(refs);
  });

  it('words a tracking answer from the carrier facts', () => {
    const reply = trackingReply([
      { reference: 'CSQU3054383', carrier: 'CMA CGM', available: true, status: 'LOADED', vessel: 'CMA CGM JULES', eta: '2026-11-28T10:00:00.000Z', port: 'CNSHA', port_of_discharge: 'MXZLO' },
      { reference: '987654321', carrier: null, available: false, status: null, vessel: null, eta: null, port: null, port_of_discharge: null },
      { reference: 'MAEU7654320', carrier: 'Maersk', available: true, status: null, vessel: null, eta: null, port: null, port_of_discharge: null },
    ]);
    expect(reply).toBe(
      'CSQU3054383 (CMA CGM): last reported loaded at CNSHA, vessel CMA CGM JULES, ETA 2026-11-28 at MXZLO.\n' +
        '987654321: live tracking is not available for it right now; your coordinator can help.\n' +
        'MAEU7654320 (Maersk): no movement reported yet.',
    );
  });
});
