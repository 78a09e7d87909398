import type { Condition, SegmentRef } from './condition';

/** Whom a campaign goes to, as the campaign keeps it (the segments service resolves it). */
export interface AudienceChoice {
  type: 'ALL' | 'SEGMENT' | 'FILTERED';
  segmentId: string | null;
  condition: Condition | null;
}

/**
 * Which contacts of a project a query is about: all of them, the matches of a condition (`selfId`:
 * the segment the condition belongs to, so that a reference to itself is a cycle), or the members
 * of a segment. The audience repository compiles it; nothing outside it sees the SQL.
 */
export type Audience =
  | { kind: 'all' }
  | { kind: 'condition'; condition: Condition; selfId: string | null }
  | { kind: 'segment'; segment: SegmentRef };
