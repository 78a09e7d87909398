/**
 * The rule-based email classifier: works with no outside service, and validates (and stands in
 * for) a model's answer. Plain functions, no I/O.
 *
 * Rules (case-insensitive, English and Spanish keywords; the weights are the number of keywords hit):
 * - category: the category with the most keyword hits; a tie goes to the earlier of CUSTOMS,
 *   MISSING_DOCS, PAYMENT, TRACKING; no hit → GENERAL.
 * - sentiment: FRUSTRATED when a frustration keyword appears (or three or more `!`), else URGENT when an
 *   urgency keyword appears, else NEUTRAL.
 * - priority: HIGH when the sentiment is not NEUTRAL or a high-stakes keyword appears (hold,
 *   demurrage, deadline, overdue, …); LOW when the category is GENERAL, the sentiment NEUTRAL, no
 *   shipment reference was found and the text reads as informational (FYI, newsletter, thank you)
 *   or has no category hit at all; MEDIUM otherwise.
 * - due_suggestion: HIGH the day it was received, MEDIUM the next business day, LOW three business days
 *   later (ISO date, weekends skipped).
 */
import { allRefs, extractShipmentRefs, type ShipmentRefs } from './shipment-refs';
import { CATEGORIES, PRIORITIES, SENTIMENTS, type Category, type Priority, type Sentiment } from './task-values';

export interface EmailInput {
  from: string;
  subject: string;
  body: string;
  receivedAt: Date;
}

export interface Classification {
  priority: Priority;
  category: Category;
  sentiment: Sentiment;
  summary: string;
  action_required: string;
  due_suggestion: string;
  shipment_ref: string | null;
  references: ShipmentRefs;
}

export const CATEGORY_KEYWORDS: Record<Exclude<Category, 'GENERAL'>, string[]> = {
  CUSTOMS: ['customs', 'aduana', 'pedimento', 'clearance', 'customs broker', 'agente aduanal', 'inspection', 'duties', 'duty', 'tariff', 'arancel', 'import permit', 'cove'],
  MISSING_DOCS: ['missing document', 'missing documents', 'missing doc', 'documents missing', 'document missing', 'packing list', 'commercial invoice copy', 'certificate of origin', 'faltan documentos', 'documentos faltantes', 'documento faltante', 'not received the documents', 'send the documents', 'telex release', 'original bl', 'draft bl'],
  PAYMENT: ['payment', 'pay ', 'paid', 'invoice', 'factura', 'pago', 'wire transfer', 'transfer', 'balance due', 'outstanding balance', 'remittance', 'credit note', 'freight charges', 'refund', 'cobro'],
  TRACKING: ['tracking', 'track', 'eta', 'etd', 'where is', 'status of', 'shipment status', 'vessel', 'arrival', 'arrived', 'departure', 'transshipment', 'rastreo', 'llegada', 'delayed', 'delay', 'location'],
};

/** Tie-break order of categories with the same number of hits. */
const CATEGORY_ORDER: Exclude<Category, 'GENERAL'>[] = ['CUSTOMS', 'MISSING_DOCS', 'PAYMENT', 'TRACKING'];

export const FRUSTRATED_KEYWORDS = ['unacceptable', 'frustrated', 'frustrating', 'disappointed', 'still waiting', 'still no', 'third time', 'again and again', 'no response', 'nobody answers', 'ridiculous', 'terrible', 'complaint', 'inaceptable', 'molesto', 'seguimos esperando', 'sin respuesta'];
export const URGENT_KEYWORDS = ['urgent', 'urgently', 'asap', 'as soon as possible', 'immediately', 'emergency', 'critical', 'right away', 'today', 'urgente', 'inmediato', 'lo antes posible', 'hoy'];
export const HIGH_STAKES_KEYWORDS = ['demurrage', 'detention', 'storage charges', 'on hold', 'hold', 'retenido', 'deadline', 'overdue', 'vencido', 'penalty', 'multa', 'cut-off', 'cutoff'];
export const INFORMATIONAL_KEYWORDS = ['fyi', 'for your information', 'newsletter', 'no action needed', 'no action required', 'thank you', 'thanks', 'gracias', 'para su información'];

const ACTIONS: Record<Category, string> = {
  MISSING_DOCS: 'Request the missing documents from the sender and attach them to the shipment file',
  PAYMENT: 'Check the payment or invoice status with accounting and reply to the sender',
  TRACKING: 'Look up the shipment status with the carrier and send the sender an update',
  CUSTOMS: 'Coordinate the customs clearance with the customs broker and inform the sender',
  GENERAL: 'Read the email and reply to the sender',
};

const DUE_BUSINESS_DAYS: Record<Priority, number> = { HIGH: 0, MEDIUM: 1, LOW: 3 };

/** Lower-cased text with the words padded so that keyword matches are on word boundaries. */
function normalise(text: string): string {
  return ` ${text.toLowerCase().replace(/[^\p{L}\p{N}-]+/gu, ' ')} `;
}

function hits(text: string, keywords: string[]): number {
  let n = 0;
  for (const k of keywords) if (text.includes(` ${k.trim()} `)) n++;
  return n;
}

export function classifyCategory(text: string): Category {
  const t = normalise(text);
  let best: Category = 'GENERAL';
  let bestHits = 0;
  for (const category of CATEGORY_ORDER) {
    const n = hits(t, CATEGORY_KEYWORDS[category]);
    if (n > bestHits) {
      best = category;
      bestHits = n;
    }
  }
  return best;
}

export function classifySentiment(text: string): Sentiment {
  const t = normalise(text);
  if (hits(t, FRUSTRATED_KEYWORDS) > 0 || (text.match(/!/g)?.length ?? 0) >= 3) return 'FRUSTRATED';
  if (hits(t, URGENT_KEYWORDS) > 0) return 'URGENT';
  return 'NEUTRAL';
}

export function classifyPriority(text: string, category: Category, sentiment: Sentiment, refCount: number): Priority {
  const t = normalise(text);
  if (sentiment !== 'NEUTRAL' || hits(t, HIGH_STAKES_KEYWORDS) > 0) return 'HIGH';
  if (category === 'GENERAL' && refCount === 0) return 'LOW';
  if (hits(t, INFORMATIONAL_KEYWORDS) > 0 && refCount === 0) return 'LOW';
  return 'MEDIUM';
}

/** `days` business days after `from` (Saturday and Sunday skipped), as an ISO date (UTC). */
export function addBusinessDays(from: Date, days: number): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  let left = days;
  while (left > 0) {
    d.setUTCDate(d.getUTCDate() + 1);
    const day = d.getUTCDay();
    if (day !== 0 && day !== 6) left--;
  }
  return d.toISOString().slice(0, 10);
}

export function dueSuggestion(priority: Priority, receivedAt: Date): string {
  return addBusinessDays(receivedAt, DUE_BUSINESS_DAYS[priority]);
}

/** The subject and the body's first sentence, at most 240 characters. */
export function summarise(subject: string, body: string): string {
  const firstSentence = body.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s/)[0] ?? '';
  const parts = [subject.trim(), firstSentence].filter((p) => p.length > 0);
  const text = parts.join(' — ');
  return text.length > 240 ? `${text.slice(0, 237)}...` : text;
}

export function actionRequired(category: Category, refs: string[]): string {
  return refs.length ? `${ACTIONS[category]} (${refs.join(', ')})` : ACTIONS[category];
}

/** Classifies one email with the rules alone. */
export function classifyEmail(email: EmailInput): Classification {
  const text = `${email.subject}\n${email.body}`;
  const references = extractShipmentRefs(text);
  const refs = allRefs(references);
  const category = classifyCategory(text);
  const sentiment = classifySentiment(text);
  const priority = classifyPriority(text, category, sentiment, refs.length);
  return {
    priority,
    category,
    sentiment,
    summary: summarise(email.subject, email.body),
    action_required: actionRequired(category, refs),
    due_suggestion: dueSuggestion(priority, email.receivedAt),
    shipment_ref: refs.length ? refs.join(', ') : null,
    references,
  };
}

/** What a model proposed for an email (any shape; checked by {@link mergeModelClassification}). */
export interface ModelClassification {
  priority?: unknown;
  category?: unknown;
  sentiment?: unknown;
  summary?: unknown;
  action_required?: unknown;
  due_suggestion?: unknown;
}

const isOneOf = <T extends string>(values: readonly T[], v: unknown): v is T => typeof v === 'string' && (values as readonly string[]).includes(v);
const text = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.trim().length > 0 ? v.trim().slice(0, max) : null;

/**
 * The rules validate a model's answer: each of priority, category and sentiment is taken from the
 * model only when it is one of the spec's values (upper-cased), summary and action only when non-empty
 * text, due_suggestion only when an ISO date not before the day received; shipment references always
 * come from the extraction (the model may invent numbers; check digits do not lie). Returns the
 * merged classification and whether any of the model's fields was used.
 */
export function mergeModelClassification(rules: Classification, model: ModelClassification, receivedAt: Date): { classification: Classification; usedModel: boolean } {
  const up = (v: unknown) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/[\s-]+/g, '_') : v);
  const priority = isOneOf(PRIORITIES, up(model.priority)) ? (up(model.priority) as Priority) : null;
  const category = isOneOf(CATEGORIES, up(model.category)) ? (up(model.category) as Category) : null;
  const sentiment = isOneOf(SENTIMENTS, up(model.sentiment)) ? (up(model.sentiment) as Sentiment) : null;
  const summary = text(model.summary, 500);
  const action = text(model.action_required, 500);
  const receivedDay = receivedAt.toISOString().slice(0, 10);
  const due =
    typeof model.due_suggestion === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(model.due_suggestion) &&
    !Number.isNaN(Date.parse(model.due_suggestion)) && model.due_suggestion >= receivedDay
      ? model.due_suggestion
      : null;
  const usedModel = [priority, category, sentiment, summary, action, due].some((v) => v !== null);
  const merged: Classification = {
    ...rules,
    priority: priority ?? rules.priority,
    category: category ?? rules.category,
    sentiment: sentiment ?? rules.sentiment,
    summary: summary ?? rules.summary,
    action_required: action ?? rules.action_required,
    due_suggestion: due ?? (priority ? dueSuggestion(priority, receivedAt) : rules.due_suggestion),
  };
  return { classification: merged, usedModel };
}
