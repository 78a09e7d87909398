import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { normalizeException } from '@platform/errors';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { TOOLS, ToolCall, type ToolDefinition } from './mcp-tools';

type JsonSchema = Record<string, unknown>;
type OpenApiDocument = { paths?: Record<string, Record<string, any>>; components?: { schemas?: Record<string, object> } };

/**
 * The tool-protocol (MCP) server of the account API: one tool per REST operation plus the MCP-only
 * tools (mcp-tools.ts). Input schemas come from the REST operation's OpenAPI description (path and
 * query parameters and the JSON body as one object); outputs are the REST response body — the same
 * JSON as text content and, for objects, as structuredContent — so field names are identical.
 * Errors answer `isError` with `{error}`, the REST error shape and message.
 */
@Injectable()
export class McpService {
  private readonly logger = new Logger(McpService.name);
  private tools: Tool[] = TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: (t.inputSchema ?? { type: 'object' }) as Tool['inputSchema'] }));

  constructor(private readonly moduleRef: ModuleRef) {}

  /** Takes the input schemas from the app's OpenAPI document (called once at start, see service.ts). */
  useOpenApi(doc: OpenApiDocument): void {
    this.tools = TOOLS.map((t) => ({
      name: t.name,
      description: t.rest ? `${t.description} (REST: ${t.rest})` : t.description,
      inputSchema: (t.inputSchema ?? (t.rest ? inputSchemaOf(doc, t.rest) : { type: 'object' })) as Tool['inputSchema'],
    }));
  }

  get toolList(): Tool[] {
    return this.tools;
  }

  /** A protocol server for one request of `account` (stateless: built per HTTP request). */
  server(account: AccountEntity): Server {
    const server = new Server({ name: 'automation-api', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: this.tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = TOOLS.find((t) => t.name === request.params.name);
      if (!tool) return failure(`Unknown tool ${request.params.name}`);
      return this.call(tool, account, request.params.arguments ?? {});
    });
    return server;
  }

  async call(tool: ToolDefinition, account: AccountEntity, args: Record<string, unknown>): Promise<CallToolResult> {
    try {
      const result = await tool.run(new ToolCall(account, args, this.moduleRef));
      // The REST body as it goes over the wire (Dates as strings, undefined left out).
      const json = JSON.stringify(result ?? {});
      const parsed: unknown = JSON.parse(json);
      return {
        content: [{ type: 'text', text: json }],
        ...(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? { structuredContent: parsed as Record<string, unknown> } : {}),
      };
    } catch (err) {
      const e = normalizeException(err);
      if (e.unexpected) this.logger.error({ err }, `MCP tool ${tool.name} failed`);
      return failure(e.message);
    }
  }
}

function failure(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: message }) }] };
}

/** One object schema of the operation's path and query parameters and its JSON body (refs resolved). */
export function inputSchemaOf(doc: OpenApiDocument, rest: string): JsonSchema {
  const [method, path] = rest.split(' ');
  const op = doc.paths?.[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`MCP tool for ${rest}: no such operation in the OpenAPI document`);
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema; description?: string }>) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    properties[p.name] = { ...resolve(doc, p.schema ?? {}), ...(p.description ? { description: p.description } : {}) };
    if (p.required || p.in === 'path') required.push(p.name);
  }
  const body = op.requestBody?.content?.['application/json']?.schema as JsonSchema | undefined;
  if (body) {
    const schema = resolve(doc, body);
    Object.assign(properties, (schema.properties as Record<string, JsonSchema>) ?? {});
    required.push(...((schema.required as string[]) ?? []));
  }
  return { type: 'object', properties, ...(required.length ? { required: [...new Set(required)] } : {}), additionalProperties: false };
}

function resolve(doc: OpenApiDocument, schema: JsonSchema, depth = 0): JsonSchema {
  if (depth > 12) return {};
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const { $ref: _ref, ...rest } = schema;
    return { ...resolve(doc, (doc.components?.schemas?.[name] ?? {}) as JsonSchema, depth + 1), ...rest };
  }
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (Array.isArray(v)) out[k] = v.map((x) => (x && typeof x === 'object' ? resolve(doc, x as JsonSchema, depth + 1) : x));
    else if (v && typeof v === 'object') out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, resolve(doc, pv as JsonSchema, depth + 1)])) : resolve(doc, v as JsonSchema, depth + 1);
    else out[k] = v;
  }
  return out;
}
