/**
 * The public chat's rules: tracking questions are answered from the service's records (the caller
 * looks the references up), other questions from the FAQ below by keyword hits (most hits wins; ties
 * go to the earlier entry), anything else gets a pointer to what the chat can do. Plain functions.
 */
import { extractShipmentRefs, allRefs } from '../tasks/shipment-refs';
import type { TrackingSummary } from './tracking';

export interface FaqEntry {
  topic: string;
  keywords: string[];
  answer: string;
}

export const FAQ: FaqEntry[] = [
  {
    topic: 'tracking',
    keywords: ['track', 'tracking', 'where', 'status', 'eta', 'arrive', 'arrival', 'rastreo', 'rastrear', 'llega'],
    answer: 'Send your container number (for example CSQU3054383), bill of lading or booking number and I will tell you what we have on it. Live vessel positions come from the carrier.',
  },
  {
    topic: 'documents',
    keywords: ['document', 'documents', 'documentos', 'packing', 'invoice copy', 'certificate', 'origin', 'bl', 'telex', 'release'],
    answer: 'For import clearance we need the commercial invoice, packing list, bill of lading (or telex release) and, where a trade agreement applies, the certificate of origin. Send them to your coordinator as PDF.',
  },
  {
    topic: 'customs',
    keywords: ['customs', 'aduana', 'clearance', 'pedimento', 'inspection', 'broker', 'duties', 'taxes', 'impuestos'],
    answer: 'Customs clearance usually takes 1 to 3 business days once every document is complete; a physical inspection adds 1 to 2 days. Import VAT (IVA) is 16 percent of the customs value plus duties.',
  },
  {
    topic: 'demurrage',
    keywords: ['demurrage', 'detention', 'storage', 'free days', 'almacenaje', 'demoras'],
    answer: 'Demurrage is charged by the carrier when a container stays at the terminal beyond its free days; detention when it is kept outside beyond them. Ask your coordinator for the free days of your booking before the vessel arrives.',
  },
  {
    topic: 'payment',
    keywords: ['pay', 'payment', 'invoice', 'factura', 'pago', 'transfer', 'wire', 'credit', 'bank'],
    answer: 'Invoices are payable by bank transfer in MXN or USD within the terms on the invoice. Send the payment receipt with the invoice number so the release is not delayed.',
  },
  {
    topic: 'contact',
    keywords: ['contact', 'phone', 'email', 'hours', 'office', 'human', 'agent', 'person', 'contacto', 'horario'],
    answer: 'Our operations team answers Monday to Friday, 9:00 to 18:00 (Mexico City time). Reply to any of our emails or ask your coordinator directly.',
  },
];

export const FALLBACK_ANSWER =
  'I can answer tracking questions (send a container, bill of lading or booking number) and questions about documents, customs, demurrage, payments and how to reach us.';

export function matchFaq(message: string): FaqEntry | null {
  const text = ` ${message.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  let best: FaqEntry | null = null;
  let bestHits = 0;
  for (const entry of FAQ) {
    const hits = entry.keywords.filter((k) => text.includes(` ${k} `)).length;
    if (hits > bestHits) {
      best = entry;
      bestHits = hits;
    }
  }
  return best;
}

/** Shipment references a chat message names: valid container numbers, bills of lading, bookings, or a bare reference token. */
export function chatReferences(message: string): string[] {
  const found = allRefs(extractShipmentRefs(message));
  if (found.length) return found.slice(0, 3);
  const bare = message.toUpperCase().match(/\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{8,20}\b/g) ?? [];
  return [...new Set(bare)].slice(0, 3);
}

const STATUS_TEXT: Record<TrackingSummary['status'], string> = {
  NO_RECORDS: 'we have no records on it yet',
  ATTENTION: 'it has an urgent open matter our team is working on',
  FOLLOW_UP: 'our team is following up on it',
  CLEAR: 'every matter on it is closed',
};

export function trackingReply(lookups: { reference: string; carrier: string | null; summary: TrackingSummary | null; invalid?: string }[]): string {
  return lookups
    .map(({ reference, carrier, summary, invalid }) => {
      if (invalid) return invalid;
      const who = carrier ? ` (${carrier})` : '';
      if (!summary || !summary.found) return `${reference}${who}: ${STATUS_TEXT.NO_RECORDS}.`;
      const categories = summary.open_categories.length ? ` Open topics: ${summary.open_categories.join(', ').toLowerCase().replace(/_/g, ' ')}.` : '';
      return `${reference}${who}: ${STATUS_TEXT[summary.status]}.${categories} Last update ${summary.last_update?.slice(0, 10)}.`;
    })
    .join('\n');
}
