import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { AutostartProxyConfig } from '../config';
import { Clock } from './clock';
import { WorkloadsRepository, type RequestRecord, type SessionTouch } from './workloads.repository';

/** Request history entries kept in memory between two flushes at most (a flood is sampled, never unbounded). */
const MAX_BUFFERED_RECORDS = 10_000;
/**
 * Proxied requests written to the history per service and flush (the first ones of the interval);
 * all of them are counted (`requests` of the service). Answers of the proxy itself (waiting page,
 * 202, failed start) are all kept: the history's cost stays bounded however heavy the traffic.
 */
export const PROXIED_SAMPLES_PER_FLUSH = 100;

/**
 * Activity of this replica, written to the shared state every AUTOSTART_FLUSH_MS: the last request
 * per service, the services with long-lived connections open (a WebSocket or a stream counts as
 * activity for as long as it is open), and the request history. Kept in memory in between, so a
 * proxied request costs no database round trip.
 */
@Injectable()
export class ActivityService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Activity');
  private lastSeen = new Map<string, number>();
  private counts = new Map<string, number>();
  private sessions = new Map<string, SessionTouch>();
  private readonly open = new Map<string, number>();
  private records: RequestRecord[] = [];
  private dropped = 0;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private readonly afterFlush: ((names: string[]) => Promise<void>)[] = [];

  constructor(
    private readonly repo: WorkloadsRepository,
    private readonly clock: Clock,
    config: AutostartProxyConfig,
  ) {
    this.timer = setInterval(() => void this.flush().catch((err: Error) => this.logger.warn(`activity not saved: ${err.message}`)), config.AUTOSTART_FLUSH_MS);
    this.timer.unref();
  }

  /** A request reached the service. */
  touch(name: string): void {
    this.lastSeen.set(name, this.clock.now());
  }

  /** A Sablier API call asked for a session of `durationMs` on the service (its end only moves forward). */
  session(name: string, durationMs: number): void {
    const now = this.clock.now();
    const previous = this.sessions.get(name);
    const until = Math.max(now + durationMs, previous?.until.getTime() ?? 0);
    this.sessions.set(name, { at: new Date(now), until: new Date(until) });
  }

  /** A long-lived exchange (upgrade, stream) opened; call the returned function once when it closes. */
  opened(name: string): () => void {
    this.open.set(name, (this.open.get(name) ?? 0) + 1);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.touch(name);
      const n = (this.open.get(name) ?? 1) - 1;
      if (n <= 0) this.open.delete(name);
      else this.open.set(name, n);
    };
  }

  /** Long-lived exchanges open on this replica for the service. */
  openConnections(name: string): number {
    return this.open.get(name) ?? 0;
  }

  /** Whether a proxied request of this service goes into the history (counting it either way). */
  sampleProxied(name: string): boolean {
    const n = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, n);
    return n <= PROXIED_SAMPLES_PER_FLUSH;
  }

  record(entry: RequestRecord): void {
    if (this.records.length >= MAX_BUFFERED_RECORDS) {
      this.dropped++;
      return;
    }
    this.records.push(entry);
  }

  /** Runs after every flush with the names active since the last one (cache refresh). */
  onFlushed(fn: (names: string[]) => Promise<void>): void {
    this.afterFlush.push(fn);
  }

  /** Writes what happened since the last flush (one at a time; a caller during a flush waits for it and flushes again). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.write().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async write(): Promise<void> {
    const now = this.clock.now();
    const seen = this.lastSeen;
    this.lastSeen = new Map();
    const counts = this.counts;
    this.counts = new Map();
    const sessions = this.sessions;
    this.sessions = new Map();
    for (const name of this.open.keys()) seen.set(name, now);
    const records = this.records;
    this.records = [];
    if (this.dropped > 0) {
      this.logger.warn(`${this.dropped} request history entries dropped (more than ${MAX_BUFFERED_RECORDS} between two flushes)`);
      this.dropped = 0;
    }
    const activity = new Map([...seen].map(([name, ms]) => [name, new Date(ms)]));
    try {
      await this.repo.touch(activity, counts, sessions);
      await this.repo.recordRequests(records);
    } catch (err) {
      // Not lost: merged back for the next flush.
      for (const [name, ms] of seen) if ((this.lastSeen.get(name) ?? 0) < ms) this.lastSeen.set(name, ms);
      for (const [name, n] of counts) this.counts.set(name, (this.counts.get(name) ?? 0) + n);
      for (const [name, touch] of sessions) {
        const later = this.sessions.get(name);
        if (!later || later.until < touch.until) this.sessions.set(name, later ? { at: later.at, until: touch.until } : touch);
      }
      this.records = records.concat(this.records).slice(0, MAX_BUFFERED_RECORDS);
      throw err;
    }
    for (const fn of this.afterFlush) await fn([...seen.keys()]);
  }

  /** Before the database closes (its module closes it on application shutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch((err: Error) => this.logger.warn(`activity not saved at shutdown: ${err.message}`));
  }
}
