import type { OpenAPIObject } from '@nestjs/swagger';
import { documentForRequest, forwardedPrefix } from './forwarded-prefix';

const req = (value?: string | string[]) => ({ headers: value === undefined ? {} : { 'x-forwarded-prefix': value } }) as never;

describe('forwardedPrefix', () => {
  it.each([
    ['/auth', '/auth'],
    ['/auth/', '/auth'],
    ['/edge/auth', '/edge/auth'],
    ['/a-b_c.d~e', '/a-b_c.d~e'],
  ])('takes the path prefix %j', (header, expected) => {
    expect(forwardedPrefix(req(header))).toBe(expected);
  });

  it.each([
    ['no header', undefined],
    ['empty', ''],
    ['the root alone', '/'],
    ['no leading slash', 'auth'],
    ['an absolute URL', 'https://evil.example/auth'],
    ['a protocol-relative URL', '//evil.example'],
    ['a query', '/auth?x=1'],
    ['a fragment', '/auth#x'],
    ['a parent segment', '/auth/../admin'],
    ['a dot segment', '/./auth'],
    ['an empty segment', '/auth//x'],
    ['a space', '/auth x'],
    ['a quote', '/auth"onload="x'],
    ['an encoded character', '/auth%2F..'],
    ['several values', '/auth, /email'],
    ['an array', ['/auth', '/email']],
    ['a very long path', `/${'a'.repeat(300)}`],
  ])('ignores %s', (_what, header) => {
    expect(forwardedPrefix(req(header))).toBeUndefined();
  });
});

describe('documentForRequest', () => {
  const document = { openapi: '3.0.0', info: { title: 't', version: '1' }, paths: {} } as OpenAPIObject;

  it('sets servers to the forwarded prefix, leaving the shared document unchanged', () => {
    expect(documentForRequest(document, req('/auth')).servers).toEqual([{ url: '/auth' }]);
    expect(document.servers).toBeUndefined();
  });

  it('sets servers to / without a (valid) prefix', () => {
    expect(documentForRequest(document, req()).servers).toEqual([{ url: '/' }]);
    expect(documentForRequest(document, req('https://evil.example')).servers).toEqual([{ url: '/' }]);
  });
});
