import { Injectable, type OnModuleInit } from '@nestjs/common';
import { SubscriptionEvents } from '../contacts/subscription-events';
import { ApiError } from '@platform/errors';
import { DEFAULT_LIMIT } from '../common/list-query.dto';
import { decodeCursor, toPage, type CursorPage } from '../common/pagination';
import { SuppressionsRepository } from './suppressions.repository';
import { suppressionApplies, type Suppression, type SuppressionReason } from './suppression';

export type { Suppression, SuppressionReason } from './suppression';

/** Anything an address of the list can be: keys of a cursor on (createdAt, email). */
const EMAIL_KEY = /^[^\s]{1,320}$/;

/**
 * The project's suppression list: addresses never mailed again (hard bounce, complaint, unsubscribe,
 * manual). Kept by address, not by contact, so it survives contact deletion and re-import; only
 * `DELETE /suppressions/:email` takes an address off.
 */
@Injectable()
export class SuppressionsService implements OnModuleInit {
  constructor(
    private readonly suppressions: SuppressionsRepository,
    private readonly subscriptions: SubscriptionEvents,
  ) {}

  /**
   * A contact that unsubscribes (link, API, import, bulk action) puts its address on the list with
   * the reason `unsubscribe`, so that deleting and re-importing it does not bring it back; a contact
   * that subscribes again (an existing contact switched to subscribed) lifts that entry — and only
   * that one: a bounce or complaint stays.
   */
  onModuleInit(): void {
    this.subscriptions.listen(async (projectId, contact, subscribed) => {
      if (subscribed) await this.suppressions.deleteReason(projectId, contact.email, 'unsubscribe');
      else await this.suppressions.insert(projectId, contact.email, 'unsubscribe', 'contact');
    });
  }

  /** Adds the address (lower-cased); an existing entry keeps its reason. Answers whether it was new. */
  suppress(projectId: string, email: string, reason: SuppressionReason, source: string): Promise<boolean> {
    return this.suppressions.insert(projectId, email.trim().toLowerCase(), reason, source.slice(0, 40));
  }

  isSuppressed(projectId: string, email: string): Promise<Suppression | null> {
    return this.suppressions.find(projectId, email.trim().toLowerCase());
  }

  /**
   * Of these addresses, the ones a mail of this kind must not go to (see suppressionApplies), by
   * lower-cased address.
   */
  async blocking(projectId: string, emails: string[], kind: 'MARKETING' | 'TRANSACTIONAL' | 'SYSTEM', bypass = false): Promise<Map<string, Suppression>> {
    const found = await this.suppressions.findMany(projectId, [...new Set(emails.map((e) => e.trim().toLowerCase()))]);
    return new Map(found.filter((s) => suppressionApplies(s.reason, kind, bypass)).map((s) => [s.email, s]));
  }

  /** Of these (project, address) pairs, the suppressed ones (every reason stops marketing mail), keyed `<projectId> <email>`. */
  async blockingMarketing(pairs: Array<{ projectId: string; email: string }>): Promise<Map<string, Suppression>> {
    const found = await this.suppressions.findPairs(pairs);
    return new Map(found.map((s) => [`${s.projectId} ${s.email}`, s]));
  }

  async add(projectId: string, email: string, reason: SuppressionReason = 'manual'): Promise<Suppression> {
    const address = email.trim().toLowerCase();
    await this.suppressions.insert(projectId, address, reason, 'api');
    return (await this.suppressions.find(projectId, address))!;
  }

  async remove(projectId: string, email: string): Promise<void> {
    if (!(await this.suppressions.delete(projectId, email.trim().toLowerCase()))) {
      throw new ApiError(404, 'SUPPRESSION_NOT_FOUND', 'This address is not on the suppression list', {
        suggestion: 'List the suppressed addresses with GET /suppressions.',
      });
    }
  }

  async list(projectId: string, query: { limit?: number; cursor?: string; search?: string }): Promise<CursorPage<Suppression>> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const after = decodeCursor(query.cursor, EMAIL_KEY);
    const [rows, total] = await Promise.all([this.suppressions.page(projectId, limit, after, query.search), after ? null : this.suppressions.count(projectId, query.search)]);
    const page = toPage(rows, limit, total);
    return { ...page, data: page.data.map(({ email, reason, source, createdAt }) => ({ email, reason, source, createdAt })) };
  }
}
