/** What is looked for: a custom field of the contacts (`plan`) or a tracked event name (`signed_up`). */
export type Referenced = { kind: 'field'; name: string } | { kind: 'event'; name: string };

/** A resource that references it, and where. */
export interface Reference {
  id: string;
  name: string;
  /** `condition` (segments), `audienceCondition`, `subject`, `body` (templates, campaigns), `trigger`, `step "<name>"` (workflows). */
  where: string[];
}

export const REFERENCE_KINDS = ['segments', 'templates', 'campaigns', 'workflows'] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];
export type ReferenceFinder = (projectId: string, ref: Referenced) => Promise<Reference[]>;

/** The PostgreSQL regular expression of a placeholder using the field: `{{plan}}`, `{{data.plan}}`, `{{data.plan.tier ?? "x"}}`. */
export function placeholderPattern(field: string): string {
  const name = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return `\\{\\{\\s*(data\\.)?${name}(\\.[A-Za-z0-9_-]+)*\\s*(\\?\\?|\\}\\})`;
}

/** The condition field naming it: `data.plan` (and paths below it) or `event.signed_up`. */
export function conditionField(ref: Referenced): string {
  return ref.kind === 'field' ? `data.${ref.name}` : `event.${ref.name}`;
}
