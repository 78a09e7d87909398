// Who may call what on knowledge-mcp: every MCP route needs `Authorization: Bearer <KNOWLEDGE_MCP_API_KEY>`
// (401 without it or with another key, before anything else is looked at: a valid session id alone is
// nothing). One key, no tenants or roles: `otherTenant` and `lesserRole` do not apply. The owner's
// answers prove each request right; knowledge-api's key never shows in an answer.
import type { AddressInfo } from 'node:net';
import { createTestApp, describeAuthorizationMatrix, fetchDocument, operationsOf, type MatrixSetup } from '@platform/testing';
import { knowledgeMcpService } from './service';

const MCP_KEY = 'mcp-matrix-key-0123456789abcdef';
const KNOWLEDGE_API_KEY = 'knowledge-api-matrix-key-fedcba9876';
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'authorization-matrix', version: '1.0.0' } },
};

interface Ctx {
  /** an open Streamable HTTP session (ended by the owner's DELETE, the last row that uses it) */
  session: string;
}

async function setup(): Promise<MatrixSetup<Ctx>> {
  // Nothing listens at KNOWLEDGE_API_URL: the checks here end before any tool runs (MCP_TRANSPORT applies).
  const t = await createTestApp(knowledgeMcpService, { KNOWLEDGE_API_URL: 'http://127.0.0.1:1', KNOWLEDGE_API_KEY, KNOWLEDGE_MCP_API_KEY: MCP_KEY, MCP_TRANSPORT: 'all' });
  try {
    await t.app.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    const opened = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'content-type': 'application/json', authorization: `Bearer ${MCP_KEY}` },
      body: JSON.stringify(INITIALIZE),
    });
    const session = opened.headers.get('mcp-session-id');
    if (opened.status !== 200 || !session) throw new Error(`initialize answered ${opened.status} without a session: ${await opened.text()}`);
    const document = await fetchDocument(baseUrl);
    return {
      baseUrl,
      operations: operationsOf(document),
      document,
      callers: { wrong: { Authorization: `Bearer ${'x'.repeat(MCP_KEY.length)}` }, otherTenant: {}, lesserRole: {} },
      owner: { Authorization: `Bearer ${MCP_KEY}` },
      secrets: [MCP_KEY, KNOWLEDGE_API_KEY],
      ctx: { session },
      close: () => t.close(),
    };
  } catch (err) {
    await t.close();
    throw err;
  }
}

const NOTE = 'one key (KNOWLEDGE_MCP_API_KEY), no tenants or roles';

describeAuthorizationMatrix<Ctx>('knowledge-mcp', setup, {
  'POST /mcp': {
    note: NOTE,
    request: () => ({ path: '/mcp', body: INITIALIZE, headers: MCP_HEADERS }),
    expect: { none: 401, wrong: 401 },
    owner: 200,
  },
  'GET /mcp': {
    note: `${NOTE}; the owner's answer is the session's open event stream, not sent here`,
    request: (ctx) => ({ path: '/mcp', headers: { ...MCP_HEADERS, 'mcp-session-id': ctx.session } }),
    expect: { none: 401, wrong: 401 },
  },
  'DELETE /mcp': {
    note: NOTE,
    request: (ctx) => ({ path: '/mcp', headers: { ...MCP_HEADERS, 'mcp-session-id': ctx.session } }),
    expect: { none: 401, wrong: 401 },
    owner: 200,
  },
  'GET /sse': {
    note: `${NOTE}; the owner's answer is an open event stream, not sent here`,
    request: () => ({ path: '/sse', headers: { accept: 'text/event-stream' } }),
    expect: { none: 401, wrong: 401 },
  },
  'POST /messages': {
    note: `${NOTE}; the owner gets 404 for a session that does not exist (past the key check)`,
    request: () => ({ path: '/messages?sessionId=00000000-0000-4000-8000-000000000000', body: INITIALIZE }),
    expect: { none: 401, wrong: 401 },
    owner: 404,
  },
});
