import type { FieldError } from '@platform/errors';
import { parseHeaders, parseRecipients, parseSender } from './recipients';

describe('recipients and headers', () => {
  it('accepts a string, {name, email} or a list, lower-cased and de-duplicated', () => {
    const errors: FieldError[] = [];
    expect(parseRecipients(' A@X.io ', errors)).toEqual([{ email: 'a@x.io' }]);
    expect(parseRecipients([{ name: 'Bea', email: 'b@x.io' }, 'B@x.io', 'c@x.io'], errors)).toEqual([{ name: 'Bea', email: 'b@x.io' }, { email: 'c@x.io' }]);
    expect(errors).toEqual([]);
  });

  it('reports each bad recipient by position', () => {
    const errors: FieldError[] = [];
    parseRecipients(['ok@x.io', 42, { email: 'nope' }, { email: 'n@x.io', name: 'a\nb' }, { email: 'e@x.io', cc: 'x' }], errors);
    expect(errors.map((e) => e.field)).toEqual(['to.1', 'to.2.email', 'to.3.name', 'to.4']);
    const empty: FieldError[] = [];
    parseRecipients([], empty);
    expect(empty[0]).toMatchObject({ field: 'to', code: 'too_small' });
  });

  it('parses the sender', () => {
    const errors: FieldError[] = [];
    expect(parseSender(undefined, errors)).toBeNull();
    expect(parseSender({ name: 'Acme', email: 'HI@acme.test' }, errors)).toEqual({ name: 'Acme', email: 'hi@acme.test' });
    parseSender('bad', errors);
    expect(errors[0].field).toBe('from');
  });

  it('refuses structural headers, bad names and line breaks', () => {
    const errors: FieldError[] = [];
    expect(parseHeaders({ 'X-Ok': 'yes', Subject: 'x', 'Bad Name': 'x', 'X-Inject': 'a\r\nBcc: evil@x.io', 'X-Num': 5 as unknown as string }, errors)).toEqual({ 'X-Ok': 'yes' });
    expect(errors.map((e) => [e.field, e.code])).toEqual([
      ['headers.Subject', 'forbidden_header'],
      ['headers.Bad Name', 'invalid_string'],
      ['headers.X-Inject', 'invalid_string'],
      ['headers.X-Num', 'invalid_string'],
    ]);
  });
});
