import { Injectable } from '@nestjs/common';
import { REFERENCE_KINDS, type Reference, type ReferenceFinder, type ReferenceKind, type Referenced } from './usage';

export type { Reference, Referenced } from './usage';

/**
 * Where a custom field or event name is referenced: segment conditions, template subjects and
 * bodies, campaign subjects, bodies and audience conditions, workflow triggers and steps. The features owning those resources
 * register a finder at start (they depend on contacts and events, which answer the usage routes,
 * so the lookup goes this way round).
 */
@Injectable()
export class References {
  private readonly finders = new Map<ReferenceKind, ReferenceFinder>();

  register(kind: ReferenceKind, finder: ReferenceFinder): void {
    this.finders.set(kind, finder);
  }

  async find(projectId: string, ref: Referenced): Promise<Record<ReferenceKind, Reference[]>> {
    const found = await Promise.all(REFERENCE_KINDS.map(async (kind) => [kind, (await this.finders.get(kind)?.(projectId, ref)) ?? []] as const));
    return Object.fromEntries(found) as Record<ReferenceKind, Reference[]>;
  }
}
