import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { compareTimestamps, type LogEntry, type LogFollower } from '@platform/containers';
import { KnowledgeApiConfig } from '../config';
import { RealtimeEvents } from '../realtime/realtime-events';
import { McpControlService } from './mcp-control.service';
import { McpStore } from './mcp-store';
import { toLogEntry, type McpLogEntry } from './log-entry';

const LOGS = 'logs';
const LAST = 'logs:last';
const CLEARED = 'logs:cleared';
const TAILER = 'logs:tailer';

/**
 * The MCP server's log: one replica at a time (the holder of a lock in Redis, renewed every
 * MCP_LOG_POLL_MS; another takes over when it stops renewing) follows the container's log stream
 * with timestamps, from the last line it stored, and appends each line as `{timestamp, level,
 * message}` to a list of the last MCP_LOG_BUFFER entries shared by every replica, and emits it as
 * `log_entry` on `/logs`. A clear empties the list and moves the resume point to now, so cleared
 * lines never come back, whichever replica tails next. Without REDIS_URL: the same in this process.
 */
@Injectable()
export class McpLogsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpLogs');
  private readonly token = McpStore.token();
  private timer?: NodeJS.Timeout;
  private follower?: LogFollower;
  /** The round under way (see `tick`), which a stop waits for. */
  private round?: Promise<void>;
  private stopped = false;
  private pending: LogEntry[] = [];
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly store: McpStore,
    private readonly control: McpControlService,
    private readonly realtime: RealtimeEvents,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.MCP_LOG_POLL_MS);
    this.timer.unref();
    void this.tick();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // A round under way may be taking the lock or starting a follower: it ends first.
    await this.round;
    this.follower?.close();
    await this.flushing;
    await this.store.release(TAILER, this.token).catch(() => undefined);
  }

  /** Whether this replica tails the log now. */
  get tailing(): boolean {
    return this.follower !== undefined;
  }

  /** The last `limit` entries, oldest first. */
  async recent(limit: number): Promise<McpLogEntry[]> {
    return this.store.last<McpLogEntry>(LOGS, limit);
  }

  /** Empties the log for every replica; lines written before now are not read again. */
  async clear(): Promise<void> {
    await this.flushing;
    await this.store.set(CLEARED, new Date().toISOString());
    await this.store.clear(LOGS);
  }

  /** One round: hold (or renew) the tailer's lock; holding it, follow the logs when not following yet. One round at a time. */
  tick(): Promise<void> {
    if (this.round || this.stopped) return this.round ?? Promise.resolve();
    this.round = this.holdAndFollow().finally(() => (this.round = undefined));
    return this.round;
  }

  private async holdAndFollow(): Promise<void> {
    try {
      const held = await this.store.hold(TAILER, this.token, this.config.MCP_LOG_POLL_MS * 3 + 2_000);
      if (!held) {
        this.follower?.close();
        return;
      }
      if (!this.follower && !this.stopped) await this.follow();
    } catch (err) {
      this.logger.warn(`MCP log tailer: ${(err as Error).message}`);
    }
  }

  private async follow(): Promise<void> {
    const engine = this.control.engine();
    if (!engine) return;
    const since = await this.resumePoint();
    let follower: LogFollower;
    try {
      follower = await engine.followLogs(this.control.target, (entry) => this.receive(entry), since ? { since: new Date(Date.parse(since)) } : { tail: this.config.MCP_LOG_BUFFER });
    } catch {
      return; // not running, not found or no engine: the next round looks again
    }
    if (follower.instances.length === 0) {
      follower.close();
      return;
    }
    this.follower = follower;
    void follower.ended.then(() => {
      if (this.follower === follower) this.follower = undefined;
    });
  }

  /** The later of the last stored line's time and the last clear. */
  private async resumePoint(): Promise<string | undefined> {
    const [last, cleared] = await Promise.all([this.store.get<string>(LAST), this.store.get<string>(CLEARED)]);
    if (!last || !cleared) return last ?? cleared;
    return compareTimestamps(last, cleared) >= 0 ? last : cleared;
  }

  private receive(entry: LogEntry): void {
    this.pending.push(entry);
    if (this.pending.length === 1) this.flushing = this.flushing.then(() => new Promise<void>((r) => setImmediate(r))).then(() => this.flush());
  }

  /** Stores the lines received since the last flush that are newer than the resume point, and emits them. */
  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      let after = await this.resumePoint();
      const entries: McpLogEntry[] = [];
      for (const { line } of batch) {
        if (line.timestamp && after && compareTimestamps(line.timestamp, after) <= 0) continue;
        entries.push(toLogEntry(line));
        if (line.timestamp) after = line.timestamp;
      }
      if (!entries.length) return;
      await this.store.push(LOGS, entries, this.config.MCP_LOG_BUFFER);
      if (after) await this.store.set(LAST, after);
      for (const e of entries) this.realtime.log(e.level, e.message);
    } catch (err) {
      this.logger.warn(`MCP log lines not stored: ${(err as Error).message}`);
    }
  }
}
