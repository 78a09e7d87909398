import { annotationsOf, type ToolDefinition } from './mcp-tools';
import { outputSchemaOf, toJsonSchema } from './mcp.service';

const doc = {
  paths: {
    '/api/v1/things': {
      get: { responses: { '200': { content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/ThingDto' } } } } } } },
      post: { responses: { '201': { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingDto' } } } } } },
    },
    '/api/v1/things/{id}': { delete: { responses: { '204': { description: 'gone' } } } },
  },
  components: {
    schemas: {
      ThingDto: {
        type: 'object',
        required: ['id', 'note', 'inner'],
        properties: {
          id: { type: 'integer', example: 3, minimum: 1 },
          note: { type: 'string', nullable: true, format: 'date-time', maxLength: 5 },
          state: { type: 'string', enum: ['a', 'b'], nullable: true },
          inner: { nullable: true, allOf: [{ $ref: '#/components/schemas/InnerDto' }] },
        },
      },
      InnerDto: { type: 'object', properties: { x: { type: 'string' } } },
    },
  },
};

describe('MCP output schemas and annotations', () => {
  it('OpenAPI nullable becomes a null alternative; input rules, formats and examples are left out', () => {
    expect(toJsonSchema({ type: 'string', nullable: true, format: 'date-time', pattern: 'x', example: 'y' })).toEqual({ type: ['string', 'null'] });
    expect(toJsonSchema({ type: 'string', enum: ['a'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['a', null] });
    expect(toJsonSchema({ nullable: true, allOf: [{ type: 'object' }] })).toEqual({ anyOf: [{ allOf: [{ type: 'object' }] }, { type: 'null' }] });
  });

  it('an object answer is its schema, an array answer is {items}, no body is an empty object', () => {
    const one = outputSchemaOf(doc, { rest: 'POST /api/v1/things' });
    expect(one.array).toBe(false);
    expect(one.schema).toMatchObject({ type: 'object', required: ['id', 'note', 'inner'], properties: { id: { type: 'integer' }, note: { type: ['string', 'null'] } } });
    expect((one.schema.properties as any).inner.anyOf[1]).toEqual({ type: 'null' });
    const list = outputSchemaOf(doc, { rest: 'GET /api/v1/things' });
    expect(list).toMatchObject({ array: true, schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: { type: 'object' } } } } });
    expect(outputSchemaOf(doc, { rest: 'DELETE /api/v1/things/{id}' }).schema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
    expect(outputSchemaOf(doc, { output: 'InnerDto' }).schema).toEqual({ type: 'object', properties: { x: { type: 'string' } } });
    expect(() => outputSchemaOf(doc, { output: 'MissingDto' })).toThrow(/extraModels/);
  });

  it('annotations: GET read-only and idempotent, other methods neither, hints override', () => {
    const t = (fields: Partial<ToolDefinition>) => ({ name: 'do_it', description: '', run: async () => null, ...fields }) as ToolDefinition;
    expect(annotationsOf(t({ rest: 'GET /api/v1/x' }))).toEqual({ title: 'Do it', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(annotationsOf(t({ rest: 'POST /api/v1/x', platform: true }))).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true });
    expect(annotationsOf(t({ rest: 'DELETE /api/v1/x/{id}', hints: { destructiveHint: true, idempotentHint: true } }))).toMatchObject({ destructiveHint: true, idempotentHint: true });
  });
});
