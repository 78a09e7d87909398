import { Injectable } from '@nestjs/common';
import { ApiError } from '@platform/errors';
import { Clock } from '../common/clock';
import { ClickCounter } from './click-counter';
import { ClickWriter } from './click-writer';
import { ClicksRepository } from './clicks.repository';

/** Tokens are 12 base62 characters (newClickCode, engine/engine-helpers.ts); anything else cannot be a link and costs no query. */
const TOKEN = /^[0-9A-Za-z]{10,64}$/;

/**
 * The click redirect. Each click is stored before the 302 (concurrent clicks share one statement and
 * one commit, ClickWriter), so an answered click is never lost, and counted right after, many clicks
 * per statement (ClickCounter): run counter, contact tag `link_clicked` (source
 * `link_clicked:<date>`), Event, outbox event `automation.link_clicked`. Reads of this process
 * wait for the clicks it stored to be counted (ClicksCountedInterceptor).
 * Clicks a stopped replica stored and did not count are counted by any replica, once.
 */
@Injectable()
export class ClicksService {
  constructor(
    private readonly repo: ClicksRepository,
    private readonly writer: ClickWriter,
    private readonly counter: ClickCounter,
    private readonly clock: Clock,
  ) {}

  /** Stores the click, answers the target URL; unknown code → 404. */
  async click(code: string, ip: string | null, userAgent: string | null): Promise<string> {
    const url = TOKEN.test(code) ? await this.writer.click({ token: code, at: this.clock.now(), ip, userAgent }) : null;
    if (url === null) throw new ApiError(404, 'NOT_FOUND', 'Unknown link', { suggestion: 'The link may be mistyped; ask the sender for a new one.' });
    return url;
  }

  /** The tracked link of a run's button, created once (the same token when the link is sent again). */
  linkToken(accountId: number, automationId: number, runId: string, position: number, url: string, newToken: () => string): Promise<string> {
    return this.repo.linkToken(accountId, automationId, runId, position, url, newToken);
  }

  /** Counts the stored clicks nobody counted yet (no-op for a click counted meanwhile, here or on another replica). */
  sweep(): Promise<void> {
    return this.counter.countNow();
  }
}
