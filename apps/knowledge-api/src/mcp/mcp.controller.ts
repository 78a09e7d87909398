import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RetrievalSettings } from '../search/retrieval-settings.service';
import { McpConfigDto, McpConfigUpdateDto, McpApiHealthDto, McpLogsDto, McpLogsQueryDto, McpStartDto, McpStatusDto, McpStopDto, McpToolsDto, SuccessMessageDto } from './dto/mcp.dto';
import { McpConfigService } from './mcp-config.service';
import { McpControlService } from './mcp-control.service';
import { McpLogsService } from './mcp-logs.service';
import { McpToolsService } from './mcp-tools.service';
import { ApiKeyDocs } from '../common/api-key';

const UNAVAILABLE =
  'With no engine reachable (Docker or the Kubernetes API server not configured, down or refusing) nothing here answers 5xx: the status is `docker_unavailable`.';

/** `/api/mcp/*`: the MCP server's container (start, stop, status, logs), its configuration and its tools. */
@ApiTags('mcp')
@ApiKeyDocs()
@Controller('api/mcp')
export class McpController {
  constructor(
    private readonly control: McpControlService,
    private readonly mcpConfig: McpConfigService,
    private readonly logs: McpLogsService,
    private readonly tools: McpToolsService,
    private readonly retrieval: RetrievalSettings,
  ) {}

  @Get('status')
  @ApiOperation({
    summary: 'The MCP server\'s status',
    description: `\`status\`: running, stopped, starting (started, its health check not passed yet), stopping, not_found (no such container or Deployment: MCP_CONTAINER), docker_unavailable. \`uptime\` in seconds from \`start_time\`. ${UNAVAILABLE}`,
  })
  @ApiOkResponse({ type: McpStatusDto })
  status(): Promise<McpStatusDto> {
    return this.control.status();
  }

  @Post('start')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start the MCP server (stopped → running)',
    description: `Starts the container (Docker) or scales the Deployment to its replicas (Kubernetes); the saved configuration becomes the active one. Already running: success with a message. A failure answers 200 with \`success: false\` and a message saying why (the spec\'s \`{success, message}\`), never 5xx. ${UNAVAILABLE}`,
  })
  @ApiOkResponse({ type: McpStartDto })
  start(): Promise<McpStartDto> {
    return this.control.start().then((r) => ({ ...r, container_id: r.container_id ?? null }));
  }

  @Post('stop')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop the MCP server (running → stopped)', description: `Stops the container, or scales the Deployment to 0. Failures as for start. ${UNAVAILABLE}` })
  @ApiOkResponse({ type: McpStopDto })
  stop(): Promise<McpStopDto> {
    return this.control.stop();
  }

  @Get('logs')
  @ApiOperation({
    summary: 'The MCP server\'s last log entries',
    description:
      'Oldest first, at most `limit` (default 100) of the last MCP_LOG_BUFFER (1000) entries read from the container\'s log stream (one replica follows it; every replica answers from the shared list). `timestamp` is the engine\'s; `level` from the line (JSON `level`, or a level word; else stderr error, stdout info). New entries also go out as `log_entry` on the `/logs` namespace. `[]` when nothing was read (no engine, never started).',
  })
  @ApiOkResponse({ type: McpLogsDto })
  async recentLogs(@Query() q: McpLogsQueryDto): Promise<McpLogsDto> {
    return { logs: await this.logs.recent(q.limit ?? 100) };
  }

  @Delete('logs')
  @ApiOperation({ summary: 'Clear the MCP server\'s log entries', description: 'For every replica; lines written before the clear are not read again.' })
  @ApiOkResponse({ type: SuccessMessageDto })
  async clearLogs(): Promise<SuccessMessageDto> {
    await this.logs.clear();
    return { success: true, message: 'Logs cleared' };
  }

  @Get('config')
  @ApiOperation({
    summary: 'The MCP server\'s configuration',
    description:
      '`host`, `port`, `transport`: saved (`POST /api/mcp/config`), applied at the next start; `active` is what the running server uses. The flags are what knowledge-api is configured to do (environment), not settings of this route: hybrid search with EMBEDDINGS_URL, reranking with RERANK_URL, contextual embeddings with CONTEXTUAL_EMBEDDINGS, LLM_URL and EMBEDDINGS_URL, agentic RAG (code-example search) always; `model_choice` is LLM_MODEL.',
  })
  @ApiOkResponse({ type: McpConfigDto })
  async config(): Promise<McpConfigDto> {
    const [saved, active, flags] = await Promise.all([this.mcpConfig.saved(), this.mcpConfig.active(), this.retrieval.flags()]);
    const pending = saved.host !== active.host || saved.port !== active.port || saved.transport !== active.transport;
    return {
      ...saved,
      ...flags,
      active: { host: active.host, port: active.port, transport: active.transport },
      note: pending
        ? 'host, port and transport apply at the next start of the MCP server (POST /api/mcp/start after a stop); the running server uses `active`'
        : 'host, port and transport apply at the next start of the MCP server; the flags follow knowledge-api\'s own configuration',
    };
  }

  @Post('config')
  @HttpCode(200)
  @ApiOperation({ summary: 'Save the MCP server\'s host, port and transport', description: 'Applied at the next start of the MCP server, as the answer says; 400 for a bad value.' })
  @ApiOkResponse({ type: SuccessMessageDto })
  async saveConfig(@Body() dto: McpConfigUpdateDto): Promise<SuccessMessageDto> {
    const saved = await this.mcpConfig.save({ host: dto.host, port: dto.port, transport: dto.transport });
    return { success: true, message: `Configuration saved (${saved.transport} at ${saved.host}:${saved.port}); it applies at the next start of the MCP server` };
  }

  @Get('tools')
  @ApiOperation({
    summary: 'The MCP server\'s tools',
    description:
      'Asked from the running server over MCP (`source: mcp_server`); when it does not run or does not answer within 3 s, the list its code defines (`source: catalogue`). `module`: rag, projects or server; `parameters` from each tool\'s input schema.',
  })
  @ApiOkResponse({ type: McpToolsDto })
  async listTools(): Promise<McpToolsDto> {
    const seen = await this.control.observe();
    const running = seen.ok && ['running', 'starting'].includes(seen.status.state === 'unhealthy' ? 'running' : seen.status.state);
    return this.tools.list(running);
  }

  @Get('health')
  @ApiOperation({
    summary: 'Health of this MCP control API',
    description:
      '`healthy` when the container engine (Docker Engine API or Kubernetes API server) answers, so the server can be started, stopped and watched; `unhealthy` with `message` when it does not (docker_unavailable). Whether the MCP server itself runs is `GET /api/mcp/status`. Always 200.',
  })
  @ApiOkResponse({ type: McpApiHealthDto })
  async health(): Promise<McpApiHealthDto> {
    const seen = await this.control.observe();
    if (!seen.ok && seen.state === 'docker_unavailable') return { status: 'unhealthy', service: 'mcp', message: seen.message };
    return { status: 'healthy', service: 'mcp' };
  }
}
