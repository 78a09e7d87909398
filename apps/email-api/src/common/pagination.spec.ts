import { decodeCursor, encodeCursor, toPage } from './pagination';

describe('cursor pagination', () => {
  it('round-trips a keyset', () => {
    const k = { createdAt: new Date('2026-11-22T10:00:00.123Z'), id: 'cnt_abc' };
    expect(decodeCursor(encodeCursor(k))).toEqual(k);
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor('')).toBeNull();
  });

  it('refuses garbage with 400 INVALID_CURSOR', () => {
    for (const bad of ['x', Buffer.from('["nope",1]').toString('base64url'), Buffer.from('{}').toString('base64url')]) {
      expect(() => decodeCursor(bad)).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR' }));
    }
  });

  it('builds a page from limit + 1 rows', () => {
    const rows = [1, 2, 3].map((i) => ({ id: `r${i}`, createdAt: new Date(1000 * i) }));
    const more = toPage(rows, 2, 10);
    expect(more).toMatchObject({ hasMore: true, total: 10, data: rows.slice(0, 2) });
    expect(decodeCursor(more.cursor!)).toEqual({ id: 'r2', createdAt: new Date(2000) });
    expect(toPage(rows, 3, null)).toMatchObject({ hasMore: false, cursor: null, total: 0 });
  });
});
