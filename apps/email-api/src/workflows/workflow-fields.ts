import { Injectable } from '@nestjs/common';
import { ContactsService } from '../contacts/contacts.service';
import { CONDITION_OPERATORS, type ConditionOperator } from './step-config';
import { WorkflowsService } from './workflows.service';

/** How many of the newest tracked events are read for their data keys. */
export const EVENT_SAMPLE_SIZE = 10_000;

export interface WorkflowField {
  field: string;
  source: 'contact' | 'event' | 'email';
  type: string;
  operators: ConditionOperator[];
  count?: number;
  coverage?: number;
  events?: string[];
  stepName?: string;
}

const ORDERED: ConditionOperator[] = ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'not_exists'];

/** The operators that make sense for a value type (a CONDITION accepts any, these are the useful ones). */
export function operatorsFor(type: string): ConditionOperator[] {
  switch (type) {
    case 'string':
      return [...CONDITION_OPERATORS];
    case 'number':
    case 'date':
      return ORDERED;
    case 'boolean':
      return ['equals', 'not_equals', 'exists', 'not_exists'];
    default:
      return ['exists', 'not_exists'];
  }
}

/**
 * The fields a CONDITION step can read (GET /workflows/fields): the contact's standard fields
 * (`contact.email`, `contact.subscribed`) and custom fields (`contact.data.<key>`, with their
 * inferred type and coverage from the contacts feature), the data keys of the project's recent
 * tracked events (`event.<key>`), and with a workflow its mail facts (`email.<stepId>.opened|clicked`).
 */
@Injectable()
export class WorkflowFields {
  constructor(
    private readonly contacts: ContactsService,
    private readonly workflows: WorkflowsService,
  ) {}

  async execute(projectId: string, workflowId?: string): Promise<{ totalContacts: number; eventSampleSize: number; fields: WorkflowField[] }> {
    const [contactFields, eventKeys, mailSteps] = await Promise.all([
      this.contacts.fields(projectId),
      this.workflows.eventDataKeys(projectId, EVENT_SAMPLE_SIZE),
      workflowId ? this.workflows.mailSteps(projectId, workflowId) : Promise.resolve([]),
    ]);
    const fields: WorkflowField[] = [];
    for (const f of contactFields.fields) {
      if (f.standard ? f.field !== 'email' && f.field !== 'subscribed' : !/^[A-Za-z0-9_-]{1,100}$/.test(f.field)) continue;
      const field = f.standard ? `contact.${f.field}` : `contact.data.${f.field}`;
      const operators: ConditionOperator[] = f.field === 'subscribed' && f.standard ? ['equals', 'not_equals'] : operatorsFor(f.type);
      fields.push({ field, source: 'contact', type: f.type, operators, count: f.count, coverage: f.coverage });
    }
    // One entry per key: its most frequent type (rows come most frequent first).
    const seen = new Map<string, WorkflowField>();
    for (const k of eventKeys) {
      if (!/^[A-Za-z0-9_-]{1,100}$/.test(k.key)) continue; // not addressable as event.<key>
      const known = seen.get(k.key);
      if (known) {
        known.count! += k.count;
        known.events = [...new Set([...known.events!, ...k.events])].slice(0, 10);
        continue;
      }
      const entry: WorkflowField = { field: `event.${k.key}`, source: 'event', type: k.type, operators: operatorsFor(k.type), count: k.count, events: k.events };
      seen.set(k.key, entry);
      fields.push(entry);
    }
    for (const step of mailSteps) {
      for (const fact of ['opened', 'clicked'] as const) {
        fields.push({ field: `email.${step.id}.${fact}`, source: 'email', type: 'boolean', operators: ['equals', 'not_equals'], stepName: step.name });
      }
    }
    return { totalContacts: contactFields.totalContacts, eventSampleSize: EVENT_SAMPLE_SIZE, fields };
  }
}
