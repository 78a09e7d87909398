import { Injectable } from '@nestjs/common';
import { ApiError, type FieldError } from '@platform/errors';
import { DomainsService } from '../domains/domains.service';
import { SegmentsService } from '../segments/segments.service';
import { TemplatesService } from '../templates/templates.service';
import { validateGraph, type GraphFacts, type WorkflowGraph } from './graph';

/** Answers null for a 404 of another feature (the lookups below check existence, they do not require it). */
async function orNull<T>(lookup: Promise<T>): Promise<T | null> {
  try {
    return await lookup;
  } catch (e) {
    if (e instanceof ApiError && e.getStatus() === 404) return null;
    throw e;
  }
}

/**
 * Checks a workflow definition against the enable rules (graph.ts), with the facts of the other
 * features it names: the trigger's segment (tracked membership?) and each SEND_EMAIL template (and
 * whether its domain is verified). Answers the field errors, empty when the definition is valid.
 */
@Injectable()
export class CheckWorkflow {
  constructor(
    private readonly templates: TemplatesService,
    private readonly domains: DomainsService,
    private readonly segments: SegmentsService,
  ) {}

  async execute(projectId: string, graph: WorkflowGraph): Promise<FieldError[]> {
    return validateGraph(graph, await this.facts(projectId, graph));
  }

  /** 404 `TEMPLATE_NOT_FOUND` unless the template is one of the project; locked until the transaction ends (it cannot be deleted meanwhile). */
  async lockTemplate(projectId: string, templateId: string): Promise<void> {
    await this.templates.row(projectId, templateId, true);
  }

  async facts(projectId: string, graph: WorkflowGraph): Promise<GraphFacts> {
    const facts: GraphFacts = { segments: new Map(), templates: new Map() };
    const segmentId = graph.triggerConfig?.segmentId;
    if (segmentId && (graph.triggerType === 'SEGMENT_ENTRY' || graph.triggerType === 'SEGMENT_EXIT')) {
      const segment = await orNull(this.segments.get(projectId, segmentId));
      if (segment) facts.segments.set(segment.id, { name: segment.name, tracked: segment.type === 'DYNAMIC' && segment.trackMembership });
    }
    const templateIds = new Set<string>();
    for (const step of graph.steps) {
      const id = step.type === 'SEND_EMAIL' ? (step.config as { templateId?: unknown } | null)?.templateId : undefined;
      if (typeof id === 'string') templateIds.add(id.toLowerCase());
    }
    for (const id of templateIds) {
      const template = await orNull(this.templates.row(projectId, id));
      if (!template) continue;
      const domain = await orNull(this.domains.get(projectId, template.domain_id));
      facts.templates.set(id, { name: template.name, domain: domain?.domain ?? template.from_email.split('@').pop()!, domainVerified: domain?.status === 'verified' });
    }
    return facts;
  }
}
