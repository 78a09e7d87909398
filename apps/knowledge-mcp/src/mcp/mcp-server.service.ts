import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { KnowledgeMcpConfig } from '../config';
import { KnowledgeApiClient, KnowledgeApiError } from '../knowledge/knowledge-api.client';
import { TOOLS, ToolInputError, type ServerFacts, type ToolDefinition, type ToolSession } from '../tools/tools';

export const SERVER_INFO = { name: 'knowledge-mcp', version: '1.0.0' };

interface OpenSession {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport | SSEServerTransport;
  kind: ToolSession['transport'];
  lastSeen: number;
}

/**
 * Builds protocol servers (one per session, or per request in stateless mode) carrying the tools,
 * and keeps the open sessions of this process: closed by the client (DELETE, a dropped SSE stream),
 * or after MCP_SESSION_IDLE_MS without a request.
 */
@Injectable()
export class McpServerService implements OnModuleDestroy {
  private readonly logger = new Logger('McpServer');
  private readonly sessions = new Map<string, OpenSession>();
  private readonly sweeper: NodeJS.Timeout;
  readonly startedAt = new Date();
  readonly facts: ServerFacts;

  constructor(
    private readonly config: KnowledgeMcpConfig,
    private readonly api: KnowledgeApiClient,
  ) {
    this.facts = { startedAt: this.startedAt, activeSessions: () => this.sessions.size };
    const idle = config.MCP_SESSION_IDLE_MS;
    this.sweeper = setInterval(() => this.closeIdle(Date.now() - idle), Math.min(idle, 60_000));
    this.sweeper.unref();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  get full(): boolean {
    return this.sessions.size >= this.config.MCP_MAX_SESSIONS;
  }

  /** A protocol server with every tool; `session` is what session_info answers (its id is filled in once known). */
  create(session: ToolSession): McpServer {
    const server = new McpServer(SERVER_INFO, {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Knowledge base and project tools. Search with perform_rag_query (and search_code_examples for code); get_available_sources lists the source ids to filter by. Projects, tasks, documents and versions through the manage_* tools.',
    });
    for (const tool of TOOLS) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: tool.annotations, _meta: { module: tool.module } },
        (args: Record<string, unknown>) => this.call(tool, args, session),
      );
    }
    return server;
  }

  async call(tool: ToolDefinition, args: Record<string, unknown>, session: ToolSession): Promise<CallToolResult> {
    try {
      const result = await tool.run(args, { api: this.api, session, server: this.facts });
      // An answer passed on as knowledge-api gave it keeps knowledge-api's own JSON text as the text.
      return { content: [{ type: 'text', text: this.api.bodyOf(result) ?? JSON.stringify(result) }], structuredContent: result };
    } catch (err) {
      if (err instanceof KnowledgeApiError || err instanceof ToolInputError) {
        const status = err instanceof KnowledgeApiError ? err.status : 400;
        return { isError: true, content: [{ type: 'text', text: JSON.stringify({ success: false, error: err.message, status }) }] };
      }
      this.logger.error({ err }, `tool ${tool.name} failed`);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ success: false, error: `${tool.name} failed: ${(err as Error).message}` }) }] };
    }
  }

  add(id: string, server: McpServer, transport: OpenSession['transport'], kind: OpenSession['kind']): void {
    this.sessions.set(id, { server, transport, kind, lastSeen: Date.now() });
  }

  /** The open session `id` of that transport kind (its idle clock restarted), if any. */
  get(id: string, kind: OpenSession['kind']): OpenSession | undefined {
    const s = this.sessions.get(id);
    if (!s || s.kind !== kind) return undefined;
    s.lastSeen = Date.now();
    return s;
  }

  /** Forgets a session (its transport closed). */
  remove(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    void s.server.close().catch(() => undefined);
  }

  private closeIdle(before: number): void {
    for (const [id, s] of this.sessions) {
      if (s.lastSeen >= before) continue;
      this.logger.log(`session ${id} (${s.kind}) idle: closed`);
      this.sessions.delete(id);
      void s.transport.close().catch(() => undefined);
      void s.server.close().catch(() => undefined);
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.transport.close().catch(() => undefined)));
  }
}
