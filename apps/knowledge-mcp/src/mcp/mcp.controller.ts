import { randomUUID } from 'node:crypto';
import { Controller, Delete, Get, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@platform/errors';
import type { Request, Response } from 'express';
import { KnowledgeMcpConfig } from '../config';
import { McpAccessGuard } from './mcp-access.guard';
import { McpServerService } from './mcp-server.service';
import { TransportChoiceService } from './transport-choice';
import { dropAnsweredStreams, serveWeb } from './web-bridge';

const SESSION_HEADER = 'mcp-session-id';

/** A JSON-RPC error answer (the protocol's shape, for requests the transport never sees). */
function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * The MCP endpoints. Streamable HTTP at `/mcp` (POST requests; in stateful mode also GET for the
 * server's stream and DELETE to end a session), and the deprecated HTTP+SSE transport of protocol
 * 2024-11-05 for older clients: `GET /sse` opens the stream, whose `endpoint` event names
 * `/messages?sessionId=…` (under the gateway's X-Forwarded-Prefix) for the client's POSTs.
 */
@ApiTags('mcp')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ description: '`{error}` with `WWW-Authenticate: Bearer`: no bearer key, or not KNOWLEDGE_MCP_API_KEY' })
@ApiForbiddenResponse({ description: '`{error}`: a Host not among MCP_ALLOWED_HOSTS, or an Origin not among MCP_ALLOWED_ORIGINS' })
@UseGuards(McpAccessGuard)
@Controller()
export class McpController {
  constructor(
    private readonly config: KnowledgeMcpConfig,
    private readonly mcp: McpServerService,
    private readonly transports: TransportChoiceService,
  ) {}

  @Post('mcp')
  @ApiOperation({
    summary: 'Streamable HTTP: a JSON-RPC message',
    description:
      'Stateful (MCP_SESSION_MODE=stateful): an `initialize` request without `Mcp-Session-Id` opens a session (its id in the answer\'s `Mcp-Session-Id` header); later requests send that header (404 once it is closed or unknown). Stateless: each request stands alone, answered as JSON. 401 without the bearer key, 403 for a Host or Origin not allowed.',
  })
  @ApiOkResponse({ description: 'The JSON-RPC answer (JSON); `initialize` in stateful mode also gives the `Mcp-Session-Id` header' })
  @ApiAcceptedResponse({ description: 'A notification or a response from the client, accepted (no body)' })
  @ApiBadRequestResponse({ description: 'JSON-RPC error: no session header and not an `initialize` request, or a malformed message' })
  @ApiNotFoundResponse({ description: 'JSON-RPC error for a closed or unknown session; `{error}` when Streamable HTTP is not served' })
  @ApiServiceUnavailableResponse({ description: 'Too many open sessions (MCP_MAX_SESSIONS)' })
  async post(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.requireTransport('streamable-http');
    if (this.config.MCP_SESSION_MODE === 'stateless') return this.stateless(req, res);
    const id = req.header(SESSION_HEADER);
    if (id) {
      const session = this.mcp.get(id, 'streamable-http');
      if (!session) return rpcError(res, 404, -32001, `Session ${id} not found (closed or expired): initialize a new one`);
      return serveWeb(session.transport as WebStandardStreamableHTTPServerTransport, req, res);
    }
    if (!isInitializeRequest(req.body)) return rpcError(res, 400, -32000, `Bad Request: send an initialize request first, then its ${SESSION_HEADER} header`);
    if (this.mcp.full) return rpcError(res, 503, -32000, 'Too many open sessions: try again later');
    const session = { transport: 'streamable-http' as const, mode: 'stateful' as const, startedAt: new Date(), sessionId: undefined as string | undefined };
    const server = this.mcp.create(session);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Answers to POSTs as one JSON body rather than a one-event stream (less framing per call); the
      // session's GET stream still carries what the server sends on its own.
      enableJsonResponse: true,
      onsessioninitialized: (sid) => {
        session.sessionId = sid;
        this.mcp.add(sid, server, transport, 'streamable-http');
      },
    });
    dropAnsweredStreams(transport);
    transport.onclose = () => {
      if (transport.sessionId) this.mcp.remove(transport.sessionId);
    };
    await server.connect(transport);
    await serveWeb(transport, req, res);
  }

  @Get('mcp')
  @ApiOperation({ summary: 'Streamable HTTP: the server\'s event stream of a session', description: 'Stateful mode only (`Mcp-Session-Id` required); 405 in stateless mode.' })
  @ApiOkResponse({ description: 'The session\'s event stream (`text/event-stream`)' })
  @ApiBadRequestResponse({ description: 'JSON-RPC error: no `Mcp-Session-Id` header' })
  @ApiNotFoundResponse({ description: 'JSON-RPC error for a closed or unknown session; `{error}` when Streamable HTTP is not served' })
  @ApiResponse({ status: 405, description: '`{error}` in stateless mode (with `Allow: POST`)' })
  async stream(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.sessionRequest(req, res);
  }

  @Delete('mcp')
  @ApiOperation({ summary: 'Streamable HTTP: end a session', description: 'Stateful mode only (`Mcp-Session-Id` required); 405 in stateless mode.' })
  @ApiOkResponse({ description: 'The session is closed' })
  @ApiBadRequestResponse({ description: 'JSON-RPC error: no `Mcp-Session-Id` header' })
  @ApiNotFoundResponse({ description: 'JSON-RPC error for a closed or unknown session; `{error}` when Streamable HTTP is not served' })
  @ApiResponse({ status: 405, description: '`{error}` in stateless mode (with `Allow: POST`)' })
  async end(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.sessionRequest(req, res);
  }

  @Get('sse')
  @ApiOperation({
    summary: 'Deprecated HTTP+SSE transport: open the stream',
    description: 'Server-sent events; the first, `endpoint`, names the URL to POST messages to (`/messages?sessionId=…`). Kept for clients of protocol version 2024-11-05.',
  })
  @ApiOkResponse({ description: 'The event stream (`text/event-stream`), opened with the `endpoint` event' })
  @ApiNotFoundResponse({ description: '`{error}` when the SSE transport is not served' })
  @ApiServiceUnavailableResponse({ description: '`{error}`: too many open sessions (MCP_MAX_SESSIONS)' })
  async sse(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.requireTransport('sse');
    if (this.mcp.full) throw new ApiError(503, 'TOO_MANY_SESSIONS', 'Too many open sessions: try again later');
    const prefix = String(req.header('x-forwarded-prefix') ?? '').replace(/\/+$/, '');
    const transport = new SSEServerTransport(`${prefix}/messages`, res);
    const session = { transport: 'sse' as const, mode: 'stateful' as const, startedAt: new Date(), sessionId: transport.sessionId };
    const server = this.mcp.create(session);
    this.mcp.add(transport.sessionId, server, transport, 'sse');
    res.on('close', () => this.mcp.remove(transport.sessionId));
    await server.connect(transport);
  }

  @Post('messages')
  @ApiOperation({ summary: 'Deprecated HTTP+SSE transport: a JSON-RPC message', description: 'Query `sessionId` from the `endpoint` event; answered on the stream (202 here). 404 for an unknown or closed session.' })
  @ApiAcceptedResponse({ description: 'Accepted: the answer goes out on the session\'s stream' })
  @ApiBadRequestResponse({ description: 'A malformed message' })
  @ApiNotFoundResponse({ description: '`{error}`: no open SSE session with this id, or the SSE transport is not served' })
  async message(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.requireTransport('sse');
    const id = typeof req.query.sessionId === 'string' ? req.query.sessionId : '';
    const session = id ? this.mcp.get(id, 'sse') : undefined;
    if (!session) throw new ApiError(404, 'SESSION_NOT_FOUND', `No open SSE session ${JSON.stringify(id)}: open one with GET /sse`);
    await (session.transport as SSEServerTransport).handlePostMessage(req, res, req.body);
  }

  private async sessionRequest(req: Request, res: Response): Promise<void> {
    this.requireTransport('streamable-http');
    if (this.config.MCP_SESSION_MODE === 'stateless') {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Stateless mode (MCP_SESSION_MODE=stateless): send JSON-RPC requests with POST /mcp; there are no sessions', { headers: { allow: 'POST' } });
    }
    const id = req.header(SESSION_HEADER);
    if (!id) return rpcError(res, 400, -32000, `Bad Request: the ${SESSION_HEADER} header is required`);
    const session = this.mcp.get(id, 'streamable-http');
    if (!session) return rpcError(res, 404, -32001, `Session ${id} not found (closed or expired)`);
    await serveWeb(session.transport as WebStandardStreamableHTTPServerTransport, req, res);
  }

  private async stateless(req: Request, res: Response): Promise<void> {
    const server = this.mcp.create({ transport: 'streamable-http', mode: 'stateless', startedAt: new Date() });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await serveWeb(transport, req, res);
  }

  private requireTransport(kind: 'streamable-http' | 'sse'): void {
    if (!this.transports.serves(kind)) {
      throw new ApiError(404, 'TRANSPORT_NOT_SERVED', `This server serves the ${this.transports.transport} transport only (${this.transports.source}); ${kind} is off`);
    }
  }
}
