import { Injectable } from '@nestjs/common';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { KnowledgeApiConfig } from '../config';
import { McpConfigService } from './mcp-config.service';
import { MCP_TOOL_CATALOGUE } from './mcp-tool-catalogue';
import { toolInfo, type McpToolInfo } from './tool-parameters';

export interface McpToolsAnswer {
  tools: McpToolInfo[];
  count: number;
  server_running: boolean;
  /** `mcp_server`: listed by the running server over MCP; `catalogue`: the code's own list (mcp-tool-catalogue.ts) */
  source: 'mcp_server' | 'catalogue';
  message?: string;
}

const LIST_TIMEOUT_MS = 3_000;

/**
 * `GET /api/mcp/tools`: asks the running MCP server (`tools/list` over MCP, at the active host and
 * port, with KNOWLEDGE_MCP_API_KEY; Streamable HTTP, or SSE when that is the only transport served);
 * when it does not answer within 3 s, the catalogue of the server's code.
 */
@Injectable()
export class McpToolsService {
  constructor(
    private readonly config: KnowledgeApiConfig,
    private readonly mcpConfig: McpConfigService,
  ) {}

  async list(running: boolean): Promise<McpToolsAnswer> {
    const fallback = (message: string): McpToolsAnswer => ({ tools: MCP_TOOL_CATALOGUE, count: MCP_TOOL_CATALOGUE.length, server_running: running, source: 'catalogue', message });
    if (!running) return fallback('The MCP server is not running: the tools its code defines');
    try {
      const tools = await this.ask();
      return { tools, count: tools.length, server_running: true, source: 'mcp_server' };
    } catch (err) {
      return fallback(`The MCP server did not list its tools (${(err as Error).message}): the tools its code defines`);
    }
  }

  private async ask(): Promise<McpToolInfo[]> {
    const { host, port, transport } = await this.mcpConfig.active();
    const base = `http://${host}:${port}`;
    const headers: Record<string, string> = this.config.KNOWLEDGE_MCP_API_KEY ? { authorization: `Bearer ${this.config.KNOWLEDGE_MCP_API_KEY}` } : {};
    const signal = AbortSignal.timeout(LIST_TIMEOUT_MS);
    // The client's modules (a fifth of a second to load) come with the first listing, not at start.
    const [{ Client }, { SSEClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/sse.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    ]);
    const connection: Transport =
      transport === 'sse'
        ? new SSEClientTransport(new URL(`${base}/sse`), {
            requestInit: { headers, signal },
            eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, signal, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
          })
        : new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers, signal } });
    const client = new Client({ name: 'knowledge-api', version: '1.0.0' });
    try {
      await client.connect(connection, { timeout: LIST_TIMEOUT_MS });
      const { tools } = await client.listTools(undefined, { timeout: LIST_TIMEOUT_MS });
      return tools.map(toolInfo);
    } finally {
      // End the session at once rather than leave it to the server's idle timeout.
      if (connection instanceof StreamableHTTPClientTransport) await connection.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    }
  }
}
