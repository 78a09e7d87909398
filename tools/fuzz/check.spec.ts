import fc from 'fast-check';
import { judge } from './check';
import { generateRequests } from './generate';
import { operations, type OpenApiDocument } from './openapi';
import { materialize, type Answer } from './send';

const doc: OpenApiDocument = {
  paths: {
    '/items/{id}': {
      patch: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } },
        responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } }, '404': {} },
      },
    },
    '/page': { get: { responses: { '200': { content: { 'text/html': {} } } } } },
  },
  components: { schemas: { Item: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, count: { type: 'integer', minimum: 0, maximum: 10 } } } } },
};
const ops = operations(doc);
const answer = (status: number, body: unknown, contentType = 'application/json'): Answer => ({
  status,
  headers: { 'content-type': contentType },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  truncated: false,
  headBytes: 100,
  bodyBytes: 0,
  ms: 1,
});

describe('the fuzzer', () => {
  it('reads operations with their $refs resolved', () => {
    expect(ops.map((o) => o.key)).toEqual(['PATCH /items/{id}', 'GET /page']);
    expect(ops[0].body?.content['application/json'].required).toEqual(['name']);
  });

  it('judges 5xx, errors outside the shape, oversized errors and stack traces as failures', () => {
    const [patch, page] = ops;
    expect(judge(patch, 'plain', answer(404, { error: 'Item not found' })).ok).toBe(true);
    expect(judge(patch, 'plain', answer(500, { error: 'x' }))).toMatchObject({ ok: false, klass: '5xx' });
    expect(judge(patch, 'plain', answer(400, { message: 'x' }))).toMatchObject({ ok: false, klass: 'shape' });
    expect(judge(patch, 'envelope', answer(422, { success: false, error: { code: 'V', message: 'm', statusCode: 422, requestId: 'r' }, timestamp: 't' })).ok).toBe(true);
    expect(judge(patch, 'plain', answer(400, { error: 'a'.repeat(20_000) }))).toMatchObject({ ok: false, klass: 'size' });
    expect(judge(patch, 'plain', answer(400, { error: 'boom\n    at run (/app/x.js:1:2)' }))).toMatchObject({ ok: false, klass: 'shape' });
    expect(judge(page, 'plain', answer(400, '<p>bad link</p>', 'text/html')).ok).toBe(true);
    expect(judge(patch, 'plain', { ...answer(0, ''), error: 'socket hang up' })).toMatchObject({ ok: false, klass: 'no-answer' });
  });

  it('generates the same requests for the same seed, the first ones whatever the count', () => {
    const opts = { credentials: [{ name: 'none', weight: 1 }, { name: 'valid', weight: 3 }], ids: ['seed'] };
    const a = generateRequests(ops, opts, 42, 50);
    const b = generateRequests(ops, opts, 42, 20);
    expect(b).toEqual(a.slice(0, 20));
    expect(generateRequests(ops, opts, 43, 20)).not.toEqual(b);
  });

  it('fills seeded ids and credentials only when sending', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const [req] = generateRequests(ops, { credentials: [{ name: 'valid', weight: 1 }], ids: ['seed'] }, seed, 1);
        const sent = materialize(req, { credentials: { valid: { authorization: 'Bearer k' } }, ids: { seed: 'the-id' } });
        expect(sent.target).not.toContain('{{id:');
        if (req.credential === 'valid') expect(sent.headers.authorization).toBe('Bearer k');
      }),
      { numRuns: 50 },
    );
  });
});
