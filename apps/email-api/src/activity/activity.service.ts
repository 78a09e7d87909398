import { Injectable } from '@nestjs/common';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { decodeCursor, toPage, type CursorPage } from '../common/pagination';
import { ActivityRepository, type ActivityItem } from './activity.repository';

const DAY = 24 * 60 * 60 * 1000;

/** The activity feed: tracked events and emails of a project, newest first. */
@Injectable()
export class ActivityService {
  constructor(private readonly activity: ActivityRepository) {}

  async list(projectId: string, query: { limit?: number; cursor?: string; type?: string; contactId?: string }): Promise<CursorPage<ActivityItem>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const filter = { type: query.type, contactId: query.contactId };
    const [rows, total] = await Promise.all([this.activity.page(projectId, limit, after, filter), after ? null : this.activity.count(projectId, filter)]);
    return toPage(rows, limit, total);
  }

  /** Counts by type since `since` (default 30 days). */
  async stats(projectId: string, since = new Date(Date.now() - 30 * DAY)) {
    const byType = await this.activity.countsByType(projectId, since);
    const total = Object.values(byType).reduce((a, b) => a + b, 0);
    const events = byType['event'] ?? 0;
    return { since, total, events, emails: total - events, byType };
  }

  /** Items since `since` (default 24 hours). */
  async recentCount(projectId: string, since = new Date(Date.now() - DAY)) {
    return { since, count: await this.activity.count(projectId, { since }) };
  }

  types(projectId: string): Promise<string[]> {
    return this.activity.types(projectId);
  }
}
