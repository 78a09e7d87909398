import { startFakeTrackingFeed, type FakeTrackingFeed } from './tracking-feed';

describe('fake tracking feed', () => {
  let feed: FakeTrackingFeed;
  afterEach(async () => feed?.close());

  it('answers positions, statuses, junk and 404, counting requests', async () => {
    feed = await startFakeTrackingFeed({ a: { lat: 1, lon: 2, speed: 50, recorded_at: '2026-11-28T10:00:00Z', driver: 'Ana' }, gone: 410, bad: 'junk' });
    expect(await (await fetch(feed.link('a'))).json()).toMatchObject({ lat: 1, driver: 'Ana' });
    expect((await fetch(feed.link('gone'))).status).toBe(410);
    expect(await (await fetch(feed.link('bad'))).text()).toContain('maintenance');
    expect((await fetch(feed.link('nope'))).status).toBe(404);
    expect(feed.requests.get('a')).toBe(1);
  });

  it('hangs when asked, until closed', async () => {
    feed = await startFakeTrackingFeed({ h: 'hang' });
    await expect(fetch(feed.link('h'), { signal: AbortSignal.timeout(100) })).rejects.toThrow();
  });
});
