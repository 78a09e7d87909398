import { ApiError } from '@platform/errors';
import { assertIfMatch, draftEtag } from './etag';

const current = draftEtag('9d2f0c3e-4b7a-4f51-9a43-1c2d3e4f5a6b', 4);

function outcome(header: string | string[] | undefined): string {
  try {
    assertIfMatch(header, current);
    return 'ok';
  } catch (err) {
    const e = err as ApiError;
    return `${e.getStatus()} ${e.code}`;
  }
}

describe('If-Match on the draft', () => {
  it.each<[string, string | string[] | undefined, string]>([
    ['the current tag', current, 'ok'],
    ['the current tag in a list', `"other", ${current}`, 'ok'],
    ['the current tag over two headers', ['"other"', current], 'ok'],
    ['no header', undefined, '428 PRECONDITION_REQUIRED'],
    ['an empty header', '  ', '428 PRECONDITION_REQUIRED'],
    ['*', '*', '428 IF_MATCH_WILDCARD_REFUSED'],
    ['* in a list', `${current}, *`, '428 IF_MATCH_WILDCARD_REFUSED'],
    ['the current tag made weak', `W/${current}`, '412 WEAK_ETAG_REFUSED'],
    ['a weak tag in a list', `${current}, w/"x"`, '412 WEAK_ETAG_REFUSED'],
    ['an earlier revision', draftEtag('9d2f0c3e-4b7a-4f51-9a43-1c2d3e4f5a6b', 3), '412 PRECONDITION_FAILED'],
    ['the tag unquoted', current.slice(1, -1), '412 PRECONDITION_FAILED'],
  ])('%s', (_name, header, expected) => {
    expect(outcome(header)).toBe(expected);
  });

  it('names the current tag when the draft changed', () => {
    try {
      assertIfMatch('"stale"', current);
      throw new Error('not refused');
    } catch (err) {
      expect((err as ApiError).headers).toEqual({ ETag: current });
    }
  });
});
