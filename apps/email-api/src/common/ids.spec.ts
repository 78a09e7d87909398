import { idPattern, newId } from './ids';

describe('newId', () => {
  it('gives the prefix and 20 base-36 characters, never the same id twice across refills of the byte pool', () => {
    const ids = Array.from({ length: 1000 }, () => newId('evt'));
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-z]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(newId('cnt')).toMatch(/^cnt_[0-9a-z]{20}$/);
  });

  it('documents the same shape as the OpenAPI pattern', () => {
    for (const prefix of ['cnt', 'evt', 'eml', 'job'] as const) expect(newId(prefix)).toMatch(new RegExp(idPattern(prefix)));
    expect(newId('cnt')).not.toMatch(new RegExp(idPattern('evt')));
  });
});
