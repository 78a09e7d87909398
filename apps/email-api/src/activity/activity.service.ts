import { Injectable } from '@nestjs/common';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { decodeCursor, toPage, type CursorPage } from '../common/pagination';
import { ExecutionsService } from '../workflows/executions.service';
import { ActivityRepository, MAIL_EVENT_ACTIVITY, type ActivityFilter, type ActivityItem } from './activity.repository';

const DAY = 24 * 60 * 60 * 1000;
const MAIL_EVENT_TYPES = new Set(Object.values(MAIL_EVENT_ACTIVITY));

/** The activity feed: tracked events, emails and mail events of a project, newest first. */
@Injectable()
export class ActivityService {
  constructor(
    private readonly activity: ActivityRepository,
    private readonly executions: ExecutionsService,
  ) {}

  async list(projectId: string, query: { limit?: number; cursor?: string } & ActivityFilter): Promise<CursorPage<ActivityItem>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor);
    const filter: ActivityFilter = { type: query.type, contactId: query.contactId, emailId: query.emailId, campaignId: query.campaignId, since: query.since, until: query.until };
    const [rows, total] = await Promise.all([this.activity.page(projectId, limit, after, filter), after ? null : this.activity.count(projectId, filter)]);
    return toPage(rows, limit, total);
  }

  /** Counts by type since `since` (default 30 days). */
  async stats(projectId: string, since = new Date(Date.now() - 30 * DAY)) {
    const byType = await this.activity.countsByType(projectId, since);
    const total = Object.values(byType).reduce((a, b) => a + b, 0);
    const events = byType['event'] ?? 0;
    const mailEvents = Object.entries(byType).filter(([type]) => MAIL_EVENT_TYPES.has(type)).reduce((a, [, n]) => a + n, 0);
    return { since, total, events, emails: total - events - mailEvents, mailEvents, byType };
  }

  /** Items since `since` (default 24 hours). */
  async recentCount(projectId: string, since = new Date(Date.now() - DAY)) {
    return { since, count: await this.activity.count(projectId, { since }) };
  }

  /**
   * Scheduled campaigns and waiting workflow executions, soonest first (executions waiting for an
   * event without timeout last); at most `limit` items.
   */
  async upcoming(projectId: string, limit = DEFAULT_LIMIT) {
    const [campaigns, executions] = await Promise.all([this.activity.upcoming(projectId, limit), this.executions.upcoming(projectId, limit)]);
    const at = (d: Date | null) => (d ? d.getTime() : Number.POSITIVE_INFINITY);
    return [...campaigns, ...executions].sort((a, b) => at(a.scheduledFor) - at(b.scheduledFor)).slice(0, limit);
  }

  types(projectId: string): Promise<string[]> {
    return this.activity.types(projectId);
  }
}
