import { firstTooDeep, RejectNulPipe, unstorableText } from './input-safety';
import { RequestValidationException } from '@platform/errors';

describe('firstTooDeep', () => {
  const nest = (depth: number, leaf: unknown = 1): unknown => (depth === 0 ? leaf : { a: nest(depth - 1, leaf) });

  it('accepts scalars, flat and moderately nested values', () => {
    expect(firstTooDeep(undefined, 3)).toBeNull();
    expect(firstTooDeep('x', 3)).toBeNull();
    expect(firstTooDeep({ a: 1, b: [1, 2] }, 3)).toBeNull();
    expect(firstTooDeep(nest(3), 4)).toBeNull();
  });

  it('names the path of the first object or array at the limit', () => {
    expect(firstTooDeep(nest(4), 3)).toBe('a.a.a');
    expect(firstTooDeep({ ok: 1, list: [[[[]]]] }, 3)).toBe('list.0.0');
  });

  it('walks hostile depths without recursion', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    expect(firstTooDeep(deep, 32)).toBe(Array.from({ length: 32 }, () => '0').join('.'));
  });
});

describe('unstorableText', () => {
  it('names every string and key holding a NUL, with its path', () => {
    expect(unstorableText({ a: 'ok', b: ['x', 'y\u0000'], 'c\u0000': 1 })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'b.1', code: 'invalid_string' }),
        expect.objectContaining({ field: 'c\u0000', code: 'invalid_key' }),
      ]),
    );
    expect(unstorableText({ a: 'fine', n: 1, d: new Date(), buf: Buffer.from([0]) })).toEqual([]);
  });

  it('names strings and keys holding an unpaired surrogate, and accepts paired ones (emoji)', () => {
    expect(unstorableText({ ok: 'smile 😀', lone: 'a\ud800b', low: '\udc00', ['k\ud83d']: 1 }).map((e) => e.field).sort()).toEqual(['k\ud83d', 'lone', 'low']);
    expect(unstorableText({ text: '😀 ok \u00e9' })).toEqual([]);
  });

  it('names a bare parameter by its own name', () => {
    expect(unstorableText('a\u0000b', 'id')).toEqual([expect.objectContaining({ field: 'id' })]);
  });
});

describe('RejectNulPipe', () => {
  const pipe = new RejectNulPipe();

  it('passes clean values and custom parameters through unchanged', () => {
    const body = { text: 'hello' };
    expect(pipe.transform(body, { type: 'body' })).toBe(body);
    expect(pipe.transform('x\u0000', { type: 'custom' })).toBe('x\u0000');
  });

  it('throws a RequestValidationException naming the query field', () => {
    expect(() => pipe.transform({ search: 'a\u0000' }, { type: 'query' })).toThrow(RequestValidationException);
  });
});
