import { Injectable } from '@nestjs/common';
import { AccountsService, type WebhookAccount } from '../accounts/accounts.service';

/** How long the receiver uses an account row (id, app secret) it read, without reading it again. */
export const WEBHOOK_ACCOUNT_FRESH_MS = 10_000;
/** Accounts remembered at most (the oldest read is forgotten first). */
export const WEBHOOK_ACCOUNTS_CACHED = 10_000;

export interface FoundAccounts {
  accounts: WebhookAccount[];
  /** Whether any of them came from the cache (and may be up to WEBHOOK_ACCOUNT_FRESH_MS old). */
  cached: boolean;
}

/**
 * The webhook receiver's accounts by platform id (`entry.id`), read from the database at most every
 * WEBHOOK_ACCOUNT_FRESH_MS per account and process, so that a delivery usually costs no lookup.
 * Changes still apply promptly: the receiver reads again at once when a delivery's signature does
 * not match the remembered secrets (a new app secret works from its first delivery), ids not found
 * are never remembered (a newly connected account's first delivery is stored), and a replaced
 * secret stops being accepted within WEBHOOK_ACCOUNT_FRESH_MS.
 */
@Injectable()
export class WebhookAccounts {
  private readonly cache = new Map<string, { account: WebhookAccount; until: number }>();

  constructor(private readonly repo: AccountsService) {}

  /** The known accounts among `igUserIds`; `fresh` reads every one from the database. */
  async find(igUserIds: string[], fresh = false): Promise<FoundAccounts> {
    const now = Date.now();
    const accounts: WebhookAccount[] = [];
    const missing: string[] = [];
    for (const id of igUserIds) {
      const hit = fresh ? undefined : this.cache.get(id);
      if (hit && hit.until > now) accounts.push(hit.account);
      else missing.push(id);
    }
    const cached = accounts.length > 0;
    if (missing.length > 0) {
      for (const id of missing) this.cache.delete(id);
      for (const account of await this.repo.byIgUserIds(missing)) {
        accounts.push(account);
        this.remember(account, now);
      }
    }
    return { accounts, cached };
  }

  private remember(account: WebhookAccount, now: number): void {
    if (this.cache.size >= WEBHOOK_ACCOUNTS_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(account.ig_user_id, { account, until: now + WEBHOOK_ACCOUNT_FRESH_MS });
  }
}
