// The part of an OpenAPI 3 document the fuzzer reads: the operations (method, path template,
// parameters, request body content types and schemas, documented responses) with every `$ref`
// resolved, and a small JSON Schema checker for the answers (type, required, properties, items,
// enum, oneOf/anyOf/allOf, nullable) — enough to tell whether an error body has the documented shape.

export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  /** `METHOD /path/{template}` */
  key: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** content type → schema of the request body ({} when the content type names none) */
  body?: { required: boolean; content: Record<string, Schema> };
  /** status (`404`, `4XX`, `default`) → content type → schema */
  responses: Record<string, Record<string, Schema>>;
  /** the operation needs a credential (its own `security` or the document's) */
  secured: boolean;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, Schema> };
  security?: Record<string, string[]>[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Resolves local `$ref`s (`#/components/...`), depth-limited so that recursive schemas end. */
export function resolve(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): Schema {
  if (!schema || typeof schema !== 'object') return {};
  if (depth > 12) return {};
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: any, part: string) => (node ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
    return resolve(doc, target, depth + 1);
  }
  const out: Schema = { ...schema };
  if (out.properties) {
    out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, Schema>).map(([k, v]) => [k, resolve(doc, v, depth + 1)]));
  }
  if (out.items) out.items = resolve(doc, out.items, depth + 1);
  if (out.additionalProperties && typeof out.additionalProperties === 'object') out.additionalProperties = resolve(doc, out.additionalProperties, depth + 1);
  for (const k of ['oneOf', 'anyOf', 'allOf']) if (Array.isArray(out[k])) out[k] = out[k].map((s: Schema) => resolve(doc, s, depth + 1));
  return out;
}

/** Every operation of the document, in document order. */
export function operations(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared: any[] = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!op || typeof op !== 'object') continue;
      const parameters: Parameter[] = [...shared, ...(op.parameters ?? [])]
        .map((p: any) => resolve(doc, p))
        .filter((p: any) => typeof p.name === 'string' && ['path', 'query', 'header', 'cookie'].includes(p.in))
        .map((p: any) => ({ name: p.name, in: p.in, required: p.in === 'path' || p.required === true, schema: resolve(doc, p.schema ?? {}) }));
      // A template variable the document forgot to declare is still a path parameter.
      for (const m of path.matchAll(/\{([^}]+)\}/g)) {
        if (!parameters.some((p) => p.in === 'path' && p.name === m[1])) parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
      }
      const requestBody = op.requestBody ? resolve(doc, op.requestBody) : undefined;
      const body = requestBody?.content
        ? {
            required: requestBody.required === true,
            content: Object.fromEntries(Object.entries(requestBody.content as Record<string, any>).map(([ct, c]) => [ct, resolve(doc, c?.schema ?? {})])),
          }
        : undefined;
      const responses: Operation['responses'] = {};
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, any>)) {
        const r = resolve(doc, response);
        responses[status] = Object.fromEntries(Object.entries((r.content ?? {}) as Record<string, any>).map(([ct, c]) => [ct, resolve(doc, c?.schema ?? {})]));
      }
      const security = op.security ?? doc.security ?? [];
      ops.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters,
        body,
        responses,
        secured: Array.isArray(security) && security.some((s: Record<string, unknown>) => Object.keys(s).length > 0),
      });
    }
  }
  return ops;
}

/** The documented JSON schema of an answer with this status (exact, then `4XX`, then `default`), if any. */
export function documentedSchema(op: Operation, status: number): { documented: boolean; schema?: Schema; contentTypes: string[] } {
  const entry = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  if (!entry) return { documented: false, contentTypes: [] };
  const json = Object.entries(entry).find(([ct]) => /json/i.test(ct));
  const schema = json && Object.keys(json[1]).length > 0 ? json[1] : undefined;
  return { documented: true, schema, contentTypes: Object.keys(entry) };
}

/**
 * Where `value` breaks `schema`, as a short list of `path: problem` (empty when it fits). Unknown
 * keywords are ignored; properties not listed are allowed unless `additionalProperties: false`.
 */
export function schemaProblems(schema: Schema, value: unknown, at = '$', depth = 0): string[] {
  if (!schema || typeof schema !== 'object' || depth > 20) return [];
  if (value === null) return schema.nullable || schema.type === 'null' || schema.type === undefined ? [] : [`${at}: null`];
  if (Array.isArray(schema.allOf)) {
    const problems = schema.allOf.flatMap((s: Schema) => schemaProblems(s, value, at, depth + 1));
    if (problems.length) return problems;
  }
  for (const k of ['oneOf', 'anyOf']) {
    if (Array.isArray(schema[k]) && schema[k].length > 0) {
      const fits = schema[k].some((s: Schema) => schemaProblems(s, value, at, depth + 1).length === 0);
      if (!fits) return [`${at}: fits none of ${k}`];
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e: unknown) => e === value)) return [`${at}: ${JSON.stringify(value)?.slice(0, 40)} not in enum`];
  const type = schema.type ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  const actual = Array.isArray(value) ? 'array' : typeof value;
  switch (type) {
    case 'string':
      return actual === 'string' ? [] : [`${at}: ${actual}, expected string`];
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? [] : [`${at}: ${actual}, expected integer`];
    case 'number':
      return actual === 'number' ? [] : [`${at}: ${actual}, expected number`];
    case 'boolean':
      return actual === 'boolean' ? [] : [`${at}: ${actual}, expected boolean`];
    case 'array':
      if (actual !== 'array') return [`${at}: ${actual}, expected array`];
      return (value as unknown[]).slice(0, 50).flatMap((v, i) => schemaProblems(schema.items ?? {}, v, `${at}[${i}]`, depth + 1));
    case 'object': {
      if (actual !== 'object') return [`${at}: ${actual}, expected object`];
      const obj = value as Record<string, unknown>;
      const problems: string[] = [];
      for (const r of Array.isArray(schema.required) ? schema.required : []) if (!(r in obj)) problems.push(`${at}.${r}: missing`);
      for (const [k, v] of Object.entries(obj)) {
        const prop = schema.properties?.[k];
        if (prop) problems.push(...schemaProblems(prop, v, `${at}.${k}`, depth + 1));
        else if (schema.additionalProperties === false) problems.push(`${at}.${k}: not allowed`);
      }
      return problems;
    }
    default:
      return [];
  }
}
