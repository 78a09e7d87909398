import { PlainErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { KnowledgeMcpModule } from './app.module';
import { KnowledgeMcpConfig } from './config';

const description = `The tool-protocol (MCP) server of knowledge-api (spec 002, part A), behind the gateway at \`/knowledge-mcp\`. It has no data of its own: every tool calls knowledge-api's REST (KNOWLEDGE_API_URL, with KNOWLEDGE_API_KEY).

**Transports**: Streamable HTTP at \`/mcp\` — stateful sessions (\`Mcp-Session-Id\`; GET for the server's stream, DELETE to end) by default, or stateless with MCP_SESSION_MODE=stateless (every POST stands alone, answered as JSON; GET and DELETE 405) — and the deprecated HTTP+SSE transport for older clients (\`GET /sse\`, then \`POST /messages?sessionId=…\`). Which are served: knowledge-api's MCP configuration \`transport\` read at start, else MCP_TRANSPORT (\`all\`).

**Tools** (named as Archon's): perform_rag_query, search_code_examples, get_available_sources, manage_project, manage_task, manage_document, manage_versions, get_project_features, health_check, session_info — each with input and output schemas and read-only / destructive / idempotent annotations; results are structured content (the same JSON as text). A failure of knowledge-api is a tool error (\`isError\`, text \`{success: false, error, status}\`).

**Access**: \`Authorization: Bearer <KNOWLEDGE_MCP_API_KEY>\` (401 otherwise; required in production), \`Host\` among MCP_ALLOWED_HOSTS and a browser's \`Origin\` among MCP_ALLOWED_ORIGINS (403 otherwise).

**Errors** (outside JSON-RPC): \`{"error": "<what went wrong>"}\` with 401, 403, 404 (transport off, unknown SSE session), 405, 503 (too many sessions). Inside the protocol: JSON-RPC errors (400 without a session, 404 for a closed session).`;

/** name and port are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree); no schema: it has no database. */
export const knowledgeMcpService: ServiceDefinition<KnowledgeMcpConfig> = {
  name: 'knowledge-mcp',
  port: 3009,
  config: KnowledgeMcpConfig,
  module: (config) => KnowledgeMcpModule.forRoot(config),
  // Part A's error shape: `{error}`.
  errorFilter: () => new PlainErrorFilter(),
  swagger: {
    title: 'knowledge-mcp',
    version: '1.0.0',
    description,
  },
};
