import type { GraphComment, GraphMedia } from '../graph/graph-client';
import { REREAD_AFTER_MS, judgePage, postsToRead } from './comment-scan';

const ACCOUNT = '1780000000000001';
const T = Date.parse('2026-01-10T12:00:00Z');
const ts = (minutesAgo: number) => new Date(T - minutesAgo * 60_000).toISOString().replace(/\.\d{3}Z$/, '+0000');
const media = (id: string, count?: number): GraphMedia => ({ id, comments_count: count });

describe('comment poller decisions', () => {
  it('reads posts with an unfinished read first, then posts whose comment count changed, then those not read for an hour; never an empty one', () => {
    const list = [media('new', 3), media('same', 5), media('empty', 0), media('resumed', 40), media('unknown'), media('stale', 7)];
    const memory = {
      same: { count: 5, at: T - 10 * 60_000 },
      stale: { count: 7, at: T - REREAD_AFTER_MS },
      resumed: { count: 10, resume: { after: 'c', count: 40, grace: false } },
      new: { count: 2, at: T },
    };
    expect(postsToRead(list, memory, T).map((m) => m.id)).toEqual(['resumed', 'new', 'unknown', 'stale']);
  });

  it('takes comments between the lower bound and the grace limit, leaves the account\'s own, counts those in their grace period', () => {
    const page: GraphComment[] = [
      { id: 'young', text: 'hi', timestamp: ts(0.5), from: { id: 'p1', username: 'a' } },
      { id: 'due', text: 'guide', timestamp: ts(5), from: { id: 'p2', username: 'b' }, replies: { data: [{ id: 'r1', text: 'me too', timestamp: ts(4), from: { id: 'p3', username: 'c' } }] } },
      { id: 'own', text: 'thanks all', timestamp: ts(6), from: { id: ACCOUNT, username: 'brand' } },
      { id: 'old', text: 'guide', timestamp: ts(120), from: { id: 'p4', username: 'd' } },
    ];
    const v = judgePage('m1', page, ACCOUNT, T - 60 * 60_000, T - 60_000);
    expect(v.due.map((c) => [c.id, c.parent_id, c.answered])).toEqual([
      ['due', null, false],
      ['r1', 'due', false],
    ]);
    expect(v.due[0]).toMatchObject({ media_id: 'm1', text: 'guide', from: { id: 'p2', username: 'b' } });
    expect(v.inGrace).toBe(1);
    expect(v.reachedBound).toBe(true);
  });

  it('a comment with a reply from the account is answered; a reply is answered by a later account reply that @mentions its author', () => {
    const page: GraphComment[] = [
      { id: 'c1', timestamp: ts(10), from: { id: 'p1', username: 'ann' }, replies: { data: [{ id: 'x', text: 'DM sent', timestamp: ts(9), from: { id: ACCOUNT } }] } },
      {
        id: 'c2',
        timestamp: ts(10),
        from: { id: 'p2', username: 'bob' },
        replies: {
          data: [
            { id: 'r-ann', text: 'same', timestamp: ts(8), from: { id: 'p3', username: 'cat' } },
            { id: 'r-dan', text: 'me', timestamp: ts(8), from: { id: 'p4', username: 'dan' } },
            { id: 'a1', text: '@cat sent!', timestamp: ts(7), from: { id: ACCOUNT } },
            { id: 'a0', text: '@dan earlier', timestamp: ts(9), from: { id: ACCOUNT } },
          ],
        },
      },
    ];
    const v = judgePage('m1', page, ACCOUNT, T - 60 * 60_000, T - 60_000);
    // A top-level comment counts as answered by any account reply in its thread (skip_if_answered's rule; when
    // unsure, the poller records rather than answers); a reply only by a later one that @mentions its author.
    expect(Object.fromEntries(v.due.map((c) => [c.id, c.answered]))).toEqual({ c1: true, c2: true, 'r-ann': true, 'r-dan': false });
    expect(v.reachedBound).toBe(false);
  });
});
