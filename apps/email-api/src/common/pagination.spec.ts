import { decodeCursor, encodeCursor, toPage } from './pagination';

describe('cursor pagination', () => {
  it('round-trips a keyset', () => {
    const k = { createdAt: new Date('2026-11-22T10:00:00.123Z'), id: 'cnt_abc' };
    expect(decodeCursor(encodeCursor(k))).toEqual(k);
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor('')).toBeNull();
  });

  it('refuses garbage with 400 INVALID_CURSOR', () => {
    const cursorOf = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of ['x', cursorOf(['nope', 1]), cursorOf({}), cursorOf(['2026-11-22T10:00:00.000Z', 'cnt_a\u0000']), cursorOf(['2026-11-22T10:00:00.000Z', "x' OR 1=1"])]) {
      expect(() => decodeCursor(bad)).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR' }));
    }
  });

  it('builds a page from limit + 1 rows', () => {
    const rows = [1, 2, 3].map((i) => ({ id: `evt_r${i}`, createdAt: new Date(1000 * i) }));
    const more = toPage(rows, 2, 10);
    expect(more).toMatchObject({ hasMore: true, total: 10, data: rows.slice(0, 2) });
    expect(decodeCursor(more.cursor!)).toEqual({ id: 'evt_r2', createdAt: new Date(2000) });
    expect(toPage(rows, 3, null)).toMatchObject({ hasMore: false, cursor: null, total: 0 });
  });
});
