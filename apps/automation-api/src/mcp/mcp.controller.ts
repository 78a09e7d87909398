import { All, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ApiError } from '@platform/errors';
import type { Request, Response } from 'express';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { McpService } from './mcp.service';

/**
 * `/mcp`: the MCP server over Streamable HTTP, **stateless** — every POST gets a fresh protocol
 * server and transport (no `Mcp-Session-Id`, JSON answers instead of an SSE stream), so any replica
 * answers any request. Authenticated with the account's bearer key like `/api/v1` (401 `{error}`).
 * GET (server-sent notifications) and DELETE (session end) answer 405, as there are no sessions.
 */
@ApiExcludeController()
@AccountAuth()
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

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

  @All()
  other(): never {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'This MCP server is stateless: send JSON-RPC requests with POST /mcp (no sessions, no server-sent event stream)', {
      headers: { allow: 'POST' },
    });
  }
}
