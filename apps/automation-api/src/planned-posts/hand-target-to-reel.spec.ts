import { NOW, fake, fakeTransactions } from '../../test/engine-fakes';
import type { ReelPublisher } from '../reels/reel.publisher';
import type { ReelsService } from '../reels/reels.service';
import { HandTargetToReel } from './hand-target-to-reel';
import type { PlannedPostRow, PlannedPostsRepository, TargetRow } from './planned-posts.repository';

describe('HandTargetToReel', () => {
  it('creates the scheduled reel and binds the target in one transaction, then wakes the publisher', async () => {
    const transactions = fakeTransactions();
    const order: string[] = [];
    const reels = fake<ReelsService>({ schedule: jest.fn(async () => (order.push('reel'), { id: 11 })) });
    const posts = fake<PlannedPostsRepository>({ handToReel: jest.fn(async () => void order.push('target')) });
    const publisher = fake<ReelPublisher>({ wake: jest.fn(() => order.push('wake')) });
    const target = { id: 5, account_id: 1, publish_at: NOW } as TargetRow;
    const post = { caption: 'New reel', source: { video_url: 'https://cdn.example.com/v.mp4' } } as PlannedPostRow;
    await new HandTargetToReel(transactions as never, posts, reels, publisher).execute(target, post);
    expect(transactions.opened).toBe(1);
    expect(reels.schedule).toHaveBeenCalledWith({ account_id: 1, publish_at: NOW, caption: 'New reel', source: { video_url: 'https://cdn.example.com/v.mp4' }, trial: false, share_to_feed: null, automation_id: null });
    expect(posts.handToReel).toHaveBeenCalledWith(5, 11);
    expect(order).toEqual(['reel', 'target', 'wake']);
  });
});
