import { Inject, Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { LogisticsHooksConfig } from '../config';
import { ErrorReportsService } from '../error-reports/error-reports.service';
import { LlmClient } from '../llm/llm.client';
import { carrierName, parseOceanQuery } from '../ocean-tracking/ocean-references';
import { OceanTrackingService, type OceanTrackResult } from '../ocean-tracking/ocean-tracking.service';
import { TasksService } from '../tasks/tasks.service';
import { buildFaq, chatReferences, FALLBACK_ANSWER, matchFaq, trackingReply, type FaqEntry } from './chat';
import { publicTracking, type PublicTracking } from './tracking';

export interface ChatReply {
  reply: string;
  topic: string;
  answered_by: 'rules' | 'model';
  references: string[];
}

const CHAT_PROMPT = [
  'You are the public assistant of a logistics operations team. Answer in the language of the question, in at most 80 words.',
  'Use only the FAQ and the tracking facts given; never invent shipment data. If the facts do not answer the question, say what you can help with.',
].join(' ');

/** Carrier answers the portal turns into "no live data" instead of an error. */
const UNAVAILABLE = new Set(['CARRIER_REQUIRED', 'CARRIER_NOT_CONFIGURED', 'CARRIER_UNAVAILABLE']);

/**
 * The public portal: dashboard counts, tracking facts from the carriers (ocean tracking) and the chat.
 * Nothing of the internal tasks is ever answered for a reference.
 */
@Injectable()
export class PortalService {
  private readonly logger = new Logger(PortalService.name);
  private readonly faq: FaqEntry[];

  constructor(
    private readonly tasks: TasksService,
    private readonly errors: ErrorReportsService,
    private readonly ocean: OceanTrackingService,
    private readonly llm: LlmClient,
    @Inject(LogisticsHooksConfig) config: LogisticsHooksConfig,
  ) {
    this.faq = buildFaq({
      currencies: config.PORTAL_CURRENCIES,
      taxRatePct: config.PORTAL_TAX_RATE_PCT,
      clearanceTime: config.PORTAL_CLEARANCE_TIME,
      inspectionTime: config.PORTAL_INSPECTION_TIME,
      officeHours: config.PORTAL_OFFICE_HOURS,
    });
  }

  async dashboardStats(): Promise<Record<string, unknown>> {
    const [refs, tasks, incidents] = await Promise.all([this.tasks.referenceCounts(), this.tasks.stats(), this.errors.stats()]);
    return {
      shipments: { total: refs.containers + refs.bills_of_lading + refs.bookings, ...refs },
      tasks: { total: tasks.total, open: tasks.by_status.PENDING + tasks.by_status.IN_PROGRESS, by_status: tasks.by_status, by_priority: tasks.by_priority },
      incidents: {
        total: incidents.total,
        open: (incidents.by_status as Record<string, number>).open + (incidents.by_status as Record<string, number>)['fix proposed'],
        by_status: incidents.by_status,
        occurrences: incidents.occurrences,
      },
    };
  }

  /** The carrier's facts on a container, bill of lading or booking number (422 for a malformed one or a wrong check digit). */
  async track(input: string): Promise<PublicTracking> {
    const query = parseOceanQuery(input);
    if (!query.ok) throw new ApiError(422, 'INVALID_TRACKING_NUMBER', query.message, { suggestion: query.suggestion });
    const carrier = query.carrier ? { code: query.carrier, name: carrierName(query.carrier) } : null;
    return publicTracking({ reference: query.reference, kind: query.kind, carrier }, await this.liveFacts(query.reference, query.kind, query.carrier));
  }

  private async liveFacts(reference: string, kind: 'container' | 'bill_of_lading' | 'booking', carrier: string | null): Promise<OceanTrackResult | null> {
    if (!carrier) return null;
    try {
      return await this.ocean.track({ tracking_number: reference, carrier, reference_type: kind });
    } catch (err) {
      if (err instanceof ApiError && UNAVAILABLE.has(err.code)) return null;
      throw err;
    }
  }

  async chat(message: string): Promise<ChatReply> {
    const references = chatReferences(message);
    const facts = (await Promise.all(references.map((reference) => this.track(reference).catch(() => null)))).filter((f): f is PublicTracking => f !== null);
    const faq = matchFaq(this.faq, message);
    const chatFacts = facts.map((f) => ({
      reference: f.tracking_number,
      carrier: f.carrier?.name ?? null,
      available: f.available,
      status: f.status,
      vessel: f.vessel,
      eta: f.eta,
      port: f.port,
      port_of_discharge: f.port_of_discharge,
    }));
    const rules: ChatReply =
      facts.length > 0
        ? { reply: trackingReply(chatFacts), topic: 'tracking', answered_by: 'rules', references }
        : { reply: faq?.answer ?? FALLBACK_ANSWER, topic: faq?.topic ?? 'other', answered_by: 'rules', references };
    if (!this.llm.enabled) return rules;
    try {
      const reply = await this.llm.complete(
        [
          { role: 'system', content: CHAT_PROMPT },
          {
            role: 'user',
            content: JSON.stringify({ question: message, faq: this.faq.map((f) => ({ topic: f.topic, answer: f.answer })), tracking_facts: chatFacts }),
          },
        ],
        { maxTokens: 300 },
      );
      return { ...rules, reply, answered_by: 'model' };
    } catch {
      this.logger.warn('chat: the model failed; the rules answered');
      return rules;
    }
  }
}
