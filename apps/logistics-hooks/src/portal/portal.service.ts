import { Injectable, Logger } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { ErrorReportsService } from '../error-reports/error-reports.service';
import { LlmClient } from '../llm/llm.client';
import { TasksService } from '../tasks/tasks.service';
import { chatReferences, FALLBACK_ANSWER, FAQ, matchFaq, trackingReply } from './chat';
import type { Carrier } from './carriers';
import { parseTrackingNumber, summariseTracking, type TrackingSummary } from './tracking';

export interface TrackResult extends TrackingSummary {
  tracking_number: string;
  carrier: Carrier | null;
  check_digit_valid: boolean | null;
}

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

/** The public portal: dashboard counts, tracking from the service's own records, and the chat. */
@Injectable()
export class PortalService {
  private readonly logger = new Logger(PortalService.name);

  constructor(
    private readonly tasks: TasksService,
    private readonly errors: ErrorReportsService,
    private readonly llm: LlmClient,
  ) {}

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

  async track(input: string): Promise<TrackResult> {
    const parsed = parseTrackingNumber(input);
    if (!parsed.ok) throw new ApiError(422, 'INVALID_TRACKING_NUMBER', parsed.reason, { suggestion: parsed.suggestion });
    const summary = summariseTracking(parsed.reference, parsed.kind, await this.tasks.byReference(parsed.reference));
    return {
      tracking_number: parsed.reference,
      carrier: parsed.carrier,
      check_digit_valid: parsed.kind === 'container' ? true : null,
      ...summary,
    };
  }

  async chat(message: string): Promise<ChatReply> {
    const references = chatReferences(message);
    const lookups = await Promise.all(
      references.map(async (reference) => {
        const parsed = parseTrackingNumber(reference);
        if (!parsed.ok) return { reference, carrier: null, summary: null, invalid: parsed.reason };
        const summary = summariseTracking(parsed.reference, parsed.kind, await this.tasks.byReference(parsed.reference));
        return { reference: parsed.reference, carrier: parsed.carrier?.name ?? null, summary };
      }),
    );
    const faq = matchFaq(message);
    const rules: ChatReply =
      lookups.length > 0
        ? { reply: trackingReply(lookups), topic: 'tracking', answered_by: 'rules', references }
        : { reply: faq?.answer ?? FALLBACK_ANSWER, topic: faq?.topic ?? 'other', answered_by: 'rules', references };
    if (!this.llm.enabled) return rules;
    try {
      const reply = await this.llm.complete(
        [
          { role: 'system', content: CHAT_PROMPT },
          {
            role: 'user',
            content: JSON.stringify({
              question: message,
              faq: FAQ.map((f) => ({ topic: f.topic, answer: f.answer })),
              tracking_facts: lookups.map((l) => ({ reference: l.reference, carrier: l.carrier, ...(l.summary ?? {}), invalid: l.invalid })),
            }),
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
