/**
 * The public chat's rules: tracking questions are answered from the service's records (the caller
 * looks the references up), other questions from the FAQ below by keyword hits (most hits wins; ties
 * go to the earlier entry), anything else gets a pointer to what the chat can do. Plain functions.
 */
import { extractShipmentRefs, allRefs } from '../tasks/shipment-refs';

export interface FaqEntry {
  topic: string;
  keywords: string[];
  answer: string;
}

/** The facts the FAQ states, from configuration (PORTAL_* variables; see the README). */
export interface FaqFacts {
  /** Currencies invoices are paid in, as written in answers: `MXN or USD`. */
  currencies: string;
  /** Import VAT rate in percent: 16. */
  taxRatePct: number;
  /** Customs clearance once the documents are complete: `1 to 3 business days`. */
  clearanceTime: string;
  /** What a physical inspection adds: `1 to 2 days`. */
  inspectionTime: string;
  /** When the team answers: `Monday to Friday, 9:00 to 18:00 (Mexico City time)`. */
  officeHours: string;
}

/** The FAQ, its answers worded from the configured facts. */
export function buildFaq(facts: FaqFacts): FaqEntry[] {
  return [
    {
      topic: 'tracking',
      keywords: ['track', 'tracking', 'where', 'status', 'eta', 'arrive', 'arrival', 'rastreo', 'rastrear', 'llega'],
      answer: 'Send your container number (for example CSQU3054383), bill of lading or booking number and I will tell you what the carrier reports on it.',
    },
    {
      topic: 'documents',
      keywords: ['document', 'documents', 'documentos', 'packing', 'invoice copy', 'certificate', 'origin', 'bl', 'telex', 'release'],
      answer: 'For import clearance we need the commercial invoice, packing list, bill of lading (or telex release) and, where a trade agreement applies, the certificate of origin. Send them to your coordinator as PDF.',
    },
    {
      topic: 'customs',
      keywords: ['customs', 'aduana', 'clearance', 'pedimento', 'inspection', 'broker', 'duties', 'taxes', 'impuestos'],
      answer: `Customs clearance usually takes ${facts.clearanceTime} once every document is complete; a physical inspection adds ${facts.inspectionTime}. Import VAT (IVA) is ${facts.taxRatePct} percent of the customs value plus duties.`,
    },
    {
      topic: 'demurrage',
      keywords: ['demurrage', 'detention', 'storage', 'free days', 'almacenaje', 'demoras'],
      answer: 'Demurrage is charged by the carrier when a container stays at the terminal beyond its free days; detention when it is kept outside beyond them. Ask your coordinator for the free days of your booking before the vessel arrives.',
    },
    {
      topic: 'payment',
      keywords: ['pay', 'payment', 'invoice', 'factura', 'pago', 'transfer', 'wire', 'credit', 'bank'],
      answer: `Invoices are payable by bank transfer in ${facts.currencies} within the terms on the invoice. Send the payment receipt with the invoice number so the release is not delayed.`,
    },
    {
      topic: 'contact',
      keywords: ['contact', 'phone', 'email', 'hours', 'office', 'human', 'agent', 'person', 'contacto', 'horario'],
      answer: `Our operations team answers ${facts.officeHours}. Reply to any of our emails or ask your coordinator directly.`,
    },
  ];
}

export const FALLBACK_ANSWER =
  'I can answer tracking questions (send a container, bill of lading or booking number) and questions about documents, customs, demurrage, payments and how to reach us.';

export function matchFaq(faq: FaqEntry[], message: string): FaqEntry | null {
  const text = ` ${message.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  let best: FaqEntry | null = null;
  let bestHits = 0;
  for (const entry of faq) {
    const hits = entry.keywords.filter((k) => text.includes(` ${k} `)).length;
    if (hits > bestHits) {
      best = entry;
      bestHits = hits;
    }
  }
  return best;
}

/**
 * Shipment references a chat message names: only well-formed ones (container numbers with a right
 * ISO 6346 check digit, bills of lading and bookings named as such or carrying a carrier's SCAC
 * prefix); at most three.
 */
export function chatReferences(message: string): string[] {
  return allRefs(extractShipmentRefs(message)).slice(0, 3);
}

/** What the carrier reports on a reference, as the chat words it (from the public tracking facts). */
export interface ChatTrackingFacts {
  reference: string;
  carrier: string | null;
  available: boolean;
  status: string | null;
  vessel: string | null;
  eta: string | null;
  port: string | null;
  port_of_discharge: string | null;
}

export function trackingReply(facts: ChatTrackingFacts[]): string {
  return facts
    .map((f) => {
      const who = f.carrier ? ` (${f.carrier})` : '';
      if (!f.available) return `${f.reference}${who}: live tracking is not available for it right now; your coordinator can help.`;
      const parts = [
        f.status ? `last reported ${f.status.toLowerCase().replace(/_/g, ' ')}${f.port ? ` at ${f.port}` : ''}` : 'no movement reported yet',
        f.vessel ? `vessel ${f.vessel}` : null,
        f.eta ? `ETA ${f.eta.slice(0, 10)}${f.port_of_discharge ? ` at ${f.port_of_discharge}` : ''}` : null,
      ].filter(Boolean);
      return `${f.reference}${who}: ${parts.join(', ')}.`;
    })
    .join('\n');
}
