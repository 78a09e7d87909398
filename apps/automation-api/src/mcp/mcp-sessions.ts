import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AutomationConfig } from '../config';

interface Session {
  accountId: number;
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

/**
 * The stateful MCP sessions of this process (`/mcp/session`): the transport and protocol server of
 * each `Mcp-Session-Id`, bound to the account that opened it. A session idle for
 * MCP_SESSION_IDLE_MINUTES is closed; at MCP_MAX_SESSIONS the least recently used one makes room.
 * Sessions live in the memory of the replica that created them (several replicas need sticky
 * routing on the header); the stateless `/mcp` needs nothing of the kind.
 */
@Injectable()
export class McpSessions implements OnModuleDestroy {
  private readonly logger = new Logger(McpSessions.name);
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(@Inject(AutomationConfig) private readonly config: AutomationConfig) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The session `id` of `accountId` (another account's id is unknown to it), marked as used. */
  get(id: string, accountId: number): Session | null {
    const s = this.sessions.get(id);
    if (!s || s.accountId !== accountId) return null;
    s.lastSeen = Date.now();
    // Most recently used last (the eviction order).
    this.sessions.delete(id);
    this.sessions.set(id, s);
    return s;
  }

  add(id: string, session: Omit<Session, 'lastSeen'>): void {
    while (this.sessions.size >= this.config.MCP_MAX_SESSIONS) {
      const [oldest] = this.sessions.keys();
      void this.close(oldest);
    }
    this.sessions.set(id, { ...session, lastSeen: Date.now() });
  }

  remove(id: string): void {
    this.sessions.delete(id);
  }

  async close(id: string): Promise<void> {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    await Promise.allSettled([s.transport.close(), s.server.close()]);
  }

  /** Closes the sessions idle longer than MCP_SESSION_IDLE_MINUTES (`now` for tests). */
  async sweep(now = Date.now()): Promise<number> {
    const idleMs = this.config.MCP_SESSION_IDLE_MINUTES * 60_000;
    const idle = [...this.sessions.entries()].filter(([, s]) => now - s.lastSeen > idleMs).map(([id]) => id);
    for (const id of idle) await this.close(id).catch((err) => this.logger.warn(`closing MCP session: ${(err as Error).message}`));
    return idle.length;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) await this.close(id);
  }
}
