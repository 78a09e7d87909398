import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { normalizeException } from '@platform/errors';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { TOOLS, ToolCall, annotationsOf, type ToolDefinition } from './mcp-tools';

type JsonSchema = Record<string, unknown>;
type OpenApiDocument = { paths?: Record<string, Record<string, any>>; components?: { schemas?: Record<string, object> } };

/**
 * The tool-protocol (MCP) server of the account API: one tool per REST operation plus the MCP-only
 * tools (mcp-tools.ts). Input schemas come from the REST operation's OpenAPI description (path and
 * query parameters and the JSON body as one object), output schemas from its response (the MCP-only
 * tools: their result DTO), both as JSON Schema; annotations say read-only, destructive, idempotent
 * and open-world (annotationsOf). Outputs are the REST response body: the same JSON as text content
 * and as `structuredContent` — an object body as it is, an array body (the protocol's structured
 * content is an object) as `{items: <body>}` — so field names are identical. Errors answer `isError`
 * with `{error}`, the REST error shape and message.
 */
@Injectable()
export class McpService {
  private readonly logger = new Logger(McpService.name);
  private tools: Tool[] = TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: (t.inputSchema ?? { type: 'object' }) as Tool['inputSchema'], annotations: annotationsOf(t) }));
  /** Tools whose REST answer is an array: structuredContent wraps it as `{items}`. */
  private readonly arrayResults = new Set<string>();

  constructor(private readonly moduleRef: ModuleRef) {}

  /** Takes the input schemas from the app's OpenAPI document (called once at start, see service.ts). */
  useOpenApi(doc: OpenApiDocument): void {
    this.tools = TOOLS.map((t) => {
      const output = outputSchemaOf(doc, t);
      if (output.array) this.arrayResults.add(t.name);
      const hints = annotationsOf(t);
      return {
        name: t.name,
        title: hints.title,
        description: t.rest ? `${t.description} (REST: ${t.rest})` : t.description,
        inputSchema: (t.inputSchema ?? (t.rest ? inputSchemaOf(doc, t.rest) : { type: 'object' })) as Tool['inputSchema'],
        outputSchema: output.schema as Tool['outputSchema'],
        annotations: hints,
      };
    });
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
      const structured = Array.isArray(parsed) ? { items: parsed } : parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : { value: parsed };
      return { content: [{ type: 'text', text: json }], structuredContent: structured };
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

/**
 * The output schema of a tool as JSON Schema: its REST operation's success response (an array body
 * wrapped as `{items}`; no body: an empty object), or the MCP-only tool's result DTO.
 */
export function outputSchemaOf(doc: OpenApiDocument, t: Pick<ToolDefinition, 'rest' | 'output'>): { schema: JsonSchema; array: boolean } {
  let schema: JsonSchema | undefined;
  if (t.output) {
    schema = doc.components?.schemas?.[t.output] as JsonSchema | undefined;
    if (!schema) throw new Error(`MCP tool result ${t.output}: not in the OpenAPI document (extraModels)`);
  } else if (t.rest) {
    const [method, path] = t.rest.split(' ');
    const responses = (doc.paths?.[path]?.[method.toLowerCase()]?.responses ?? {}) as Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
    const ok = Object.keys(responses).filter((code) => /^2\d\d$/.test(code)).sort()[0];
    schema = ok ? responses[ok].content?.['application/json']?.schema : undefined;
  }
  if (!schema) return { schema: { type: 'object', properties: {}, additionalProperties: false }, array: false };
  const json = toJsonSchema(resolve(doc, schema));
  if (json.type === 'array') return { schema: { type: 'object', properties: { items: json }, required: ['items'] }, array: true };
  return { schema: { ...json, type: 'object' }, array: false };
}

/** Keywords of an OpenAPI schema that describe the shape of an answer (validation rules of inputs and examples are left out). */
const SHAPE_KEYWORDS = new Set(['type', 'properties', 'items', 'required', 'enum', 'oneOf', 'anyOf', 'allOf', 'additionalProperties', 'description', 'nullable']);

/** OpenAPI 3.0 → JSON Schema for answers: `nullable: true` becomes a `null` alternative. */
export function toJsonSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!SHAPE_KEYWORDS.has(k) || k === 'nullable') continue;
    if (k === 'properties' && v && typeof v === 'object') out.properties = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, toJsonSchema(pv as JsonSchema)]));
    else if (k === 'items' && v && typeof v === 'object' && !Array.isArray(v)) out.items = toJsonSchema(v as JsonSchema);
    else if ((k === 'oneOf' || k === 'anyOf' || k === 'allOf') && Array.isArray(v)) out[k] = v.map((x) => toJsonSchema(x as JsonSchema));
    else if (k === 'additionalProperties' && v && typeof v === 'object') out.additionalProperties = toJsonSchema(v as JsonSchema);
    else out[k] = v;
  }
  if (schema.nullable === true) {
    // A composed schema (allOf/oneOf/anyOf of a DTO) or an untyped one: null beside it.
    if (out.allOf || out.oneOf || out.anyOf || !out.type) return { anyOf: [out, { type: 'null' }] };
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}
