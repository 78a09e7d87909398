import { randomUUID } from 'node:crypto';
import { All, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '@platform/errors';
import type { Request, Response } from 'express';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { McpService } from './mcp.service';
import { McpSessions } from './mcp-sessions';

/**
 * `/mcp`: the MCP server over Streamable HTTP, **stateless** — every POST gets a fresh protocol
 * server and transport (no `Mcp-Session-Id`, JSON answers instead of an SSE stream), so any replica
 * answers any request; GET (server-sent notifications) and DELETE (session end) answer 405.
 * `/mcp/session`: the same tools with **sessions** — an initialize request opens one (the answer
 * carries `Mcp-Session-Id`), later POSTs with the header go to its transport, GET opens its
 * server-sent event stream, DELETE ends it (McpSessions). Both are authenticated with the account's
 * bearer key like `/api/v1` (401 `{error}`); a session answers only the key's account (404 otherwise).
 */
@ApiExcludeController()
@AccountAuth()
@Controller('mcp')
export class McpController {
  constructor(
    private readonly mcp: McpService,
    private readonly sessions: McpSessions,
  ) {}

  @Post()
  @HttpCode(200)
  async handle(@CurrentAccount() account: AccountEntity, @Req() req: Request, @Res() res: Response): Promise<void> {
    const server = this.mcp.server(account);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  @Post('session')
  @HttpCode(200)
  async sessionPost(@CurrentAccount() account: AccountEntity, @Req() req: Request, @Res() res: Response): Promise<void> {
    const id = req.header('mcp-session-id');
    if (id) {
      await this.session(id, account).transport.handleRequest(req, res, req.body);
      return;
    }
    if (!isInitializeRequest(req.body)) {
      throw new ApiError(400, 'BAD_REQUEST', 'No Mcp-Session-Id header: open a session with an initialize request first (or use the stateless POST /mcp)');
    }
    const server = this.mcp.server(account);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => this.sessions.add(sid, { accountId: account.id, transport, server }),
      onsessionclosed: (sid) => this.sessions.remove(sid),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.remove(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }

  /** The session's server-sent event stream. */
  @Get('session')
  sessionStream(@CurrentAccount() account: AccountEntity, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.forward(account, req, res);
  }

  /** Ends the session. */
  @Delete('session')
  sessionEnd(@CurrentAccount() account: AccountEntity, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.forward(account, req, res);
  }

  private async forward(account: AccountEntity, req: Request, res: Response): Promise<void> {
    const id = req.header('mcp-session-id');
    if (!id) throw new ApiError(400, 'BAD_REQUEST', 'The Mcp-Session-Id header is required');
    await this.session(id, account).transport.handleRequest(req, res);
  }

  @All()
  other(): never {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: send JSON-RPC requests with POST /mcp (no sessions, no server-sent event stream; sessions: /mcp/session)', {
      headers: { allow: 'POST' },
    });
  }

  private session(id: string, account: AccountEntity) {
    const s = this.sessions.get(id, account.id);
    if (!s) throw new ApiError(404, 'NOT_FOUND', `MCP session ${id.slice(0, 64)} not found (ended, expired or of another key): initialize a new one`);
    return s;
  }
}
