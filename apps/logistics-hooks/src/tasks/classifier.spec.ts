import {
  addBusinessDays,
  classifyCategory,
  classifyEmail,
  classifyPriority,
  classifySentiment,
  dueSuggestion,
  mergeModelClassification,
  summarise,
} from './classifier';
import { CATEGORIES, PRIORITIES, SENTIMENTS } from './task-values';

const monday = new Date('2026-11-23T15:00:00Z');

describe('classifier rules', () => {
  it.each([
    ['MISSING_DOCS', 'We still have not got the packing list and the certificate of origin'],
    ['MISSING_DOCS', 'Faltan documentos del embarque'],
    ['PAYMENT', 'Please confirm the payment of invoice 4411'],
    ['PAYMENT', 'Adjunto la factura para pago'],
    ['TRACKING', 'What is the ETA of the vessel? Need a tracking update'],
    ['TRACKING', 'Rastreo del contenedor y fecha de llegada'],
    ['CUSTOMS', 'The customs broker needs the pedimento for clearance'],
    ['CUSTOMS', 'Aduana pide revisión'],
    ['GENERAL', 'Hello, can we schedule a call next week?'],
    // ties go to the earlier of CUSTOMS, MISSING_DOCS, PAYMENT, TRACKING
    ['CUSTOMS', 'customs and payment'],
    ['PAYMENT', 'payment about the vessel tracking and the invoice'],
  ])('category %s: %p', (category, text) => {
    expect(classifyCategory(text)).toBe(category);
  });

  it.each([
    ['NEUTRAL', 'Please send the documents when you can.'],
    ['URGENT', 'URGENT: need the release today'],
    ['URGENT', 'Please answer asap'],
    ['URGENT', 'Es urgente'],
    ['FRUSTRATED', 'This is unacceptable, we are still waiting for an answer'],
    ['FRUSTRATED', 'Where is my container!!!'],
    ['FRUSTRATED', 'Urgent and frustrated: third time I ask'], // frustration wins over urgency
  ])('sentiment %s: %p', (sentiment, text) => {
    expect(classifySentiment(text)).toBe(sentiment);
  });

  it.each([
    ['HIGH', 'anything', 'TRACKING', 'URGENT', 0],
    ['HIGH', 'anything', 'GENERAL', 'FRUSTRATED', 0],
    ['HIGH', 'demurrage starts tomorrow', 'TRACKING', 'NEUTRAL', 1],
    ['HIGH', 'the container is on hold', 'CUSTOMS', 'NEUTRAL', 0],
    ['MEDIUM', 'please send the ETA', 'TRACKING', 'NEUTRAL', 0],
    ['MEDIUM', 'hello', 'GENERAL', 'NEUTRAL', 1],
    ['LOW', 'hello, lunch next week?', 'GENERAL', 'NEUTRAL', 0],
    ['LOW', 'FYI the invoice was paid, thanks', 'PAYMENT', 'NEUTRAL', 0],
  ] as const)('priority %s: %p (%s, %s, %i refs)', (priority, text, category, sentiment, refs) => {
    expect(classifyPriority(text, category, sentiment, refs)).toBe(priority);
  });

  it('covers every value of the spec tables', () => {
    expect(new Set(['MISSING_DOCS', 'PAYMENT', 'TRACKING', 'CUSTOMS', 'GENERAL'])).toEqual(new Set(CATEGORIES));
    expect(new Set(['NEUTRAL', 'URGENT', 'FRUSTRATED'])).toEqual(new Set(SENTIMENTS));
    expect(new Set(['HIGH', 'MEDIUM', 'LOW'])).toEqual(new Set(PRIORITIES));
  });

  it.each([
    ['2026-11-23T15:00:00Z', 0, '2026-11-23'],
    ['2026-11-23T15:00:00Z', 1, '2026-11-24'],
    ['2026-11-27T15:00:00Z', 1, '2026-11-30'], // Friday → Monday
    ['2026-11-26T15:00:00Z', 3, '2026-12-01'], // Thursday + 3 → Tuesday
    ['2026-11-28T15:00:00Z', 1, '2026-11-30'], // Saturday → Monday
  ])('business days: %s + %i = %s', (from, days, expected) => {
    expect(addBusinessDays(new Date(from), days)).toBe(expected);
  });

  it.each([
    ['HIGH', '2026-11-23'],
    ['MEDIUM', '2026-11-24'],
    ['LOW', '2026-11-26'],
  ] as const)('due suggestion for %s', (priority, due) => {
    expect(dueSuggestion(priority, monday)).toBe(due);
  });

  it('summarises subject and first sentence, bounded', () => {
    expect(summarise('ETA?', 'When does it arrive? Thanks.')).toBe('ETA? — When does it arrive?');
    expect(summarise('x', 'y'.repeat(500)).length).toBe(240);
  });

  it('classifies a whole email', () => {
    const c = classifyEmail({
      from: 'ops@client.example',
      subject: 'URGENT customs hold',
      body: 'Customs is holding container CSQU3054383 (B/L MEDUAB123456). We need the pedimento today.',
      receivedAt: monday,
    });
    expect(c).toMatchObject({
      category: 'CUSTOMS',
      sentiment: 'URGENT',
      priority: 'HIGH',
      due_suggestion: '2026-11-23',
      shipment_ref: 'CSQU3054383, MEDUAB123456',
      references: { containers: ['CSQU3054383'], billsOfLading: ['MEDUAB123456'], bookings: [] },
    });
    expect(c.action_required).toContain('customs broker');
    expect(c.action_required).toContain('CSQU3054383');
  });
});

describe('mergeModelClassification', () => {
  const rules = classifyEmail({ from: 'a@b.c', subject: 'ETA', body: 'tracking of CSQU3054383 please', receivedAt: monday });

  it('takes the model fields that are valid values', () => {
    const { classification, usedModel } = mergeModelClassification(
      rules,
      { priority: 'high', category: 'Missing docs', sentiment: 'URGENT', summary: 'Client asks for ETA', action_required: 'Call the carrier', due_suggestion: '2026-11-25' },
      monday,
    );
    expect(usedModel).toBe(true);
    expect(classification).toMatchObject({ priority: 'HIGH', category: 'MISSING_DOCS', sentiment: 'URGENT', summary: 'Client asks for ETA', action_required: 'Call the carrier', due_suggestion: '2026-11-25' });
    expect(classification.shipment_ref).toBe('CSQU3054383');
  });

  it('keeps the rules where the model answers outside the spec values', () => {
    const { classification, usedModel } = mergeModelClassification(
      rules,
      { priority: 'CRITICAL', category: 'SHIPPING', sentiment: 42, summary: '  ', due_suggestion: '2020-01-01' },
      monday,
    );
    expect(usedModel).toBe(false);
    expect(classification).toEqual(rules);
  });

  it('derives the due date from the model priority when the model gives none', () => {
    const { classification } = mergeModelClassification(rules, { priority: 'LOW' }, monday);
    expect(classification.due_suggestion).toBe('2026-11-26');
  });
});
