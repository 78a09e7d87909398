import type { Condition } from './condition';

export interface SegmentRow {
  id: string;
  project_id: string;
  name: string;
  slug: string;
  description: string | null;
  type: 'DYNAMIC' | 'STATIC';
  condition: Condition | null;
  track_membership: boolean;
  member_count: number;
  counted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface Segment {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  type: 'DYNAMIC' | 'STATIC';
  condition: Condition | null;
  trackMembership: boolean;
  memberCount: number;
  memberCountUpdatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export function toSegment(r: SegmentRow): Segment {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    type: r.type,
    condition: r.condition,
    trackMembership: r.track_membership,
    memberCount: r.member_count,
    memberCountUpdatedAt: r.counted_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'segment'
  );
}
