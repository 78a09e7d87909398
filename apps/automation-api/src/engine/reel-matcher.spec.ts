import { compactCaption, decideReel, reelMatches, type ReelCandidate } from './reel-matcher';

const created = new Date('2026-05-01T10:00:00Z');
const at = (minutes: number, base = created) => new Date(base.getTime() + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, '+0000');
const reel = (id: string, minutes: number, caption?: string, over: Partial<ReelCandidate> = {}): ReelCandidate => ({
  id,
  caption,
  timestamp: at(minutes),
  media_product_type: 'REELS',
  permalink: `https://instagram.com/reel/${id}`,
  ...over,
});

describe('next_post reel matching', () => {
  it('compares captions without case and spaces', () => {
    expect(compactCaption(' Summer  Sale\nGuide ')).toBe('summersaleguide');
    expect(reelMatches({ created_at: created, reel_caption: 'summer sale', reel_publish_at: null }, reel('1', 5, 'The SUMMER   sale is on'))).toBe(true);
    expect(reelMatches({ created_at: created, reel_caption: 'summer sale', reel_publish_at: null }, reel('1', 5, 'winter sale'))).toBe(false);
    expect(reelMatches({ created_at: created, reel_caption: 'summer sale', reel_publish_at: null }, reel('1', 5))).toBe(false);
  });

  it('only reels, only new ones (15 minutes of slack before creation)', () => {
    const a = { created_at: created, reel_caption: null, reel_publish_at: null };
    expect(reelMatches(a, reel('1', -14))).toBe(true);
    expect(reelMatches(a, reel('1', -16))).toBe(false);
    expect(reelMatches(a, reel('1', 5, undefined, { media_product_type: 'FEED' }))).toBe(false);
    expect(reelMatches(a, reel('1', 5, undefined, { timestamp: undefined }))).toBe(false);
  });

  it('publish window: from 15 minutes before to 30 minutes after reel_publish_at', () => {
    const publish = new Date('2026-05-02T12:00:00Z');
    const a = { created_at: created, reel_caption: null, reel_publish_at: publish };
    const r = (m: number) => ({ ...reel('x', 0), timestamp: at(m, publish) });
    expect(reelMatches(a, r(-15))).toBe(true);
    expect(reelMatches(a, r(-16))).toBe(false);
    expect(reelMatches(a, r(30))).toBe(true);
    expect(reelMatches(a, r(31))).toBe(false);
  });

  it('caption and publish time together must both match', () => {
    const publish = new Date('2026-05-02T12:00:00Z');
    const a = { created_at: created, reel_caption: 'launch', reel_publish_at: publish };
    expect(reelMatches(a, { ...reel('x', 0, 'Launch day'), timestamp: at(5, publish) })).toBe(true);
    expect(reelMatches(a, { ...reel('x', 0, 'Other'), timestamp: at(5, publish) })).toBe(false);
    expect(reelMatches(a, { ...reel('x', 0, 'Launch day'), timestamp: at(60, publish) })).toBe(false);
  });

  it('one match attaches, several suggest (closest to the publish time), none waits then expires after 24 hours', () => {
    const a = { created_at: created, reel_caption: 'promo', reel_publish_at: null };
    const now = new Date(created.getTime() + 60 * 60_000);
    expect(decideReel(a, [reel('1', 10, 'promo!'), reel('2', 20, 'other')], now)).toEqual({ kind: 'attach', reel: expect.objectContaining({ id: '1' }) });
    const many = decideReel(a, [reel('1', 10, 'promo 1'), reel('2', 20, 'promo 2')], now);
    expect(many).toMatchObject({ kind: 'suggest', reel: { id: '2' }, reason: expect.stringContaining('2 reels match by caption') });
    expect(decideReel(a, [reel('3', 10, 'nope')], now)).toEqual({ kind: 'wait' });
    expect(decideReel(a, [], new Date(created.getTime() + 24 * 3_600_000))).toEqual({ kind: 'expire' });

    const publish = new Date(created.getTime() + 48 * 3_600_000);
    const timed = { created_at: created, reel_caption: null, reel_publish_at: publish };
    expect(decideReel(timed, [], new Date(created.getTime() + 30 * 3_600_000))).toEqual({ kind: 'wait' });
    const closest = decideReel(timed, [{ ...reel('a', 0), timestamp: at(-10, publish) }, { ...reel('b', 0), timestamp: at(2, publish) }], publish);
    expect(closest).toMatchObject({ kind: 'suggest', reel: { id: 'b' } });
  });
});
