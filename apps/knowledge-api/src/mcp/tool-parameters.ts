/** A tool as knowledge-api reports it (the spec's MCP tool). */
export interface McpToolInfo {
  name: string;
  description: string;
  module: string;
  parameters: Array<{ name: string; type: string; required: boolean }>;
}

type JsonSchema = { type?: string | string[]; enum?: unknown[]; anyOf?: JsonSchema[]; oneOf?: JsonSchema[]; properties?: Record<string, JsonSchema>; required?: string[] };

/** A JSON Schema's type in one word: `string`, `integer`, `array`, …, or alternatives joined by `|`. */
export function typeOf(schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  if (Array.isArray(schema.type)) return schema.type.join('|');
  if (schema.type) return schema.type;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return [...new Set(alternatives.map(typeOf))].join('|');
  if (schema.enum) return 'string';
  return 'any';
}

/** A tool of the protocol's `tools/list` (its input schema, `_meta.module`) as the spec's MCP tool. */
export function toolInfo(tool: { name: string; description?: string; inputSchema: JsonSchema; _meta?: Record<string, unknown> }): McpToolInfo {
  const required = new Set(tool.inputSchema.required ?? []);
  return {
    name: tool.name,
    description: tool.description ?? '',
    module: typeof tool._meta?.module === 'string' ? tool._meta.module : 'server',
    parameters: Object.entries(tool.inputSchema.properties ?? {}).map(([name, schema]) => ({ name, type: typeOf(schema), required: required.has(name) })),
  };
}
