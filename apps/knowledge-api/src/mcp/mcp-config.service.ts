import { Injectable } from '@nestjs/common';
import { KnowledgeApiConfig } from '../config';
import { McpStore } from './mcp-store';

export type McpTransport = 'all' | 'streamable-http' | 'sse';

/** Where and how the MCP server serves: what `POST /api/mcp/config` sets. */
export interface McpEndpointConfig {
  host: string;
  port: number;
  transport: McpTransport;
}

/** The endpoint configuration in use since the server's last start through knowledge-api. */
export interface ActiveMcpConfig extends McpEndpointConfig {
  started_at: string;
}

const SAVED = 'config';
const ACTIVE = 'active';

/**
 * The MCP server's configuration. host, port and transport are saved (shared by replicas) and apply
 * at the next start: `POST /api/mcp/start` makes them active (knowledge-api then reaches the server
 * at host:port; the server reads `transport` from `GET /api/mcp/config` when it starts). The RAG flags
 * are not settings here: they report what this service's own configuration does (RetrievalSettings).
 */
@Injectable()
export class McpConfigService {
  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly store: McpStore,
  ) {}

  defaults(): McpEndpointConfig {
    return { host: this.config.MCP_HOST, port: this.config.MCP_PORT, transport: this.config.MCP_TRANSPORT };
  }

  /** The saved configuration (the defaults from the environment until one is saved). */
  async saved(): Promise<McpEndpointConfig> {
    return { ...this.defaults(), ...(await this.store.get<Partial<McpEndpointConfig>>(SAVED)) };
  }

  async save(change: Partial<McpEndpointConfig>): Promise<McpEndpointConfig> {
    const next = { ...(await this.saved()), ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) };
    await this.store.set(SAVED, next);
    return next;
  }

  /**
   * The configuration of the running server: the one made active by its last start through
   * knowledge-api, else the environment's (MCP_HOST, MCP_PORT, MCP_TRANSPORT: how the deployment wires it).
   */
  async active(): Promise<McpEndpointConfig & { started_at?: string }> {
    return (await this.store.get<ActiveMcpConfig>(ACTIVE)) ?? this.defaults();
  }

  /** At a start: the saved configuration becomes the active one. */
  async activate(startedAt: Date): Promise<ActiveMcpConfig> {
    const active = { ...(await this.saved()), started_at: startedAt.toISOString() };
    await this.store.set(ACTIVE, active);
    return active;
  }
}
