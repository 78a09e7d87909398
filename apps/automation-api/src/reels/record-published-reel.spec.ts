import { NOW, fake, fakeClock, fakeTransactions } from '../../test/engine-fakes';
import type { AutomationsService } from '../automations/automations.service';
import type { EventsService } from '../events/events.service';
import { RecordPublishedReel } from './record-published-reel';
import type { ReelRow, ReelsRepository } from './reels.repository';

const reel = { id: 3, account_id: 1, automation_id: 7, status: 'publishing' } as ReelRow;
const next = new Date(NOW.getTime() + 5_000);

function setup(opts: { stepped?: boolean; attached?: boolean } = {}) {
  const transactions = fakeTransactions();
  const reels = fake<ReelsRepository>({ step: jest.fn(async () => opts.stepped ?? true) });
  const automations = fake<AutomationsService>({ attachReel: jest.fn(async () => opts.attached ?? true) });
  const events = fake<EventsService>({ record: jest.fn() });
  return { transactions, reels, automations, events, record: new RecordPublishedReel(transactions as never, reels, automations, events, fakeClock() as never) };
}

describe('RecordPublishedReel', () => {
  it('publishes the reel and attaches its waiting automation with an Event, in one transaction', async () => {
    const s = setup();
    await expect(s.record.execute(reel, 'media-9', 'https://ig/p/9', next)).resolves.toBe(true);
    expect(s.transactions.opened).toBe(1);
    expect(s.reels.step).toHaveBeenCalledWith(3, 'publishing', 'published', { media_id: 'media-9', permalink: 'https://ig/p/9', published_at: NOW, container_status: 'PUBLISHED', error: null }, next);
    expect(s.automations.attachReel).toHaveBeenCalledWith(7, 'media-9', NOW);
    expect(s.events.record).toHaveBeenCalledWith(1, { automation_id: 7, username: null, kind: 'reel_attached', text: 'https://ig/p/9', ref: 'media-9' });
  });

  it('a reel no longer publishing (cancelled, another replica) attaches nothing', async () => {
    const s = setup({ stepped: false });
    await expect(s.record.execute(reel, 'media-9', null, next)).resolves.toBe(false);
    expect(s.automations.attachReel).not.toHaveBeenCalled();
  });

  it('an automation that stopped waiting (or none bound) gets no Event', async () => {
    const s = setup({ attached: false });
    await expect(s.record.execute(reel, 'media-9', null, next)).resolves.toBe(false);
    expect(s.events.record).not.toHaveBeenCalled();
    const unbound = setup();
    await expect(unbound.record.execute({ ...reel, automation_id: null }, 'media-9', null, next)).resolves.toBe(false);
    expect(unbound.automations.attachReel).not.toHaveBeenCalled();
  });
});
