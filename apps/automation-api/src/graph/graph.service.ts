import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent } from 'undici';
import { Clock } from '../common/clock';
import { AutomationConfig } from '../config';
import { AccountLimiter, type RateBudget } from './call-budget';
import { PgRateBudget } from './pg-rate-budget';
import { GraphApiError } from './graph-api.error';
import { GraphClient, type GraphCallOptions } from './graph-client';
import { RateBudgetsRepository } from './rate-budgets.repository';

const HOUR_MS = 3_600_000;

/** The fields of an account row a client is built from (an `AccountEntity` is one). */
export interface GraphAccount {
  id: number;
  graph_url: string;
  access_token: string | null;
  ig_user_id: string | null;
}

/**
 * Hands out a GraphClient per account: base URL and token from the account row, one limiter
 * (bounded concurrency and throttling pause per process; the hourly call budget) and the 750/hour
 * private-reply budget. Both budgets live in PostgreSQL (`rate_budgets`, `PgRateBudget`), so every
 * replica counts against the same limits; the concurrency bound is per process by nature.
 */
@Injectable()
export class GraphService implements OnApplicationShutdown {
  private readonly limiters = new Map<number, AccountLimiter>();
  private readonly privateReplies = new Map<number, RateBudget>();
  private readonly agent: Agent;

  constructor(
    @Inject(AutomationConfig) private readonly config: AutomationConfig,
    private readonly budgets: RateBudgetsRepository,
    private readonly clock: Clock,
  ) {
    this.agent = new Agent({ connections: config.GRAPH_CONCURRENCY * 4, keepAliveTimeout: 10_000 });
  }

  /** Budget windows follow the app's Clock (tests move it instead of waiting for an hour boundary). */
  private readonly now = (): number => this.clock.now().getTime();

  limiter(accountId: number): AccountLimiter {
    let limiter = this.limiters.get(accountId);
    if (!limiter) {
      limiter = new AccountLimiter({
        concurrency: this.config.GRAPH_CONCURRENCY,
        callsPerHour: this.config.GRAPH_CALLS_PER_HOUR,
        budget: new PgRateBudget(this.budgets, accountId, 'calls', this.config.GRAPH_CALLS_PER_HOUR, HOUR_MS, this.now),
      });
      this.limiters.set(accountId, limiter);
    }
    return limiter;
  }

  privateReplyBudget(accountId: number): RateBudget {
    let budget = this.privateReplies.get(accountId);
    if (!budget) {
      budget = new PgRateBudget(this.budgets, accountId, 'private_replies', this.config.PRIVATE_REPLIES_PER_HOUR, HOUR_MS, this.now);
      this.privateReplies.set(accountId, budget);
    }
    return budget;
  }

  /**
   * The client of an account. `interactive` (default) bounds the wait for a throttled account so that
   * request handlers answer 502 instead of hanging; the engine passes false and queues.
   */
  client(account: GraphAccount, mode: 'interactive' | 'background' = 'interactive'): GraphClient {
    if (!account.access_token) {
      throw new GraphApiError('auth', 'the account has no access token (set IG_ACCESS_TOKEN or connect the account)');
    }
    const defaults: GraphCallOptions =
      mode === 'interactive' ? { maxWaitMs: this.config.GRAPH_MAX_WAIT_MS, retryThrottled: 0 } : { maxWaitMs: Infinity, retryThrottled: 3 };
    return new GraphClient(
      { baseUrl: account.graph_url, accessToken: account.access_token, igUserId: account.ig_user_id, timeoutMs: this.config.GRAPH_TIMEOUT_MS },
      this.limiter(account.id),
      this.privateReplyBudget(account.id),
      this.agent,
      defaults,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    for (const l of this.limiters.values()) l.dispose();
    for (const b of this.privateReplies.values()) b.dispose();
    await this.agent.close();
  }
}
