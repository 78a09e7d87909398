import { AutomationEmailCaptured, AutomationLinkSent, type Outbox } from '@platform/messaging';
import { NOW, aRun, anAccount, anAutomation, fake } from '../../test/engine-fakes';
import type { ContactsService } from '../contacts/contacts.service';
import { AnnounceRun } from './announce-run';
import type { DeliveriesRepository } from './deliveries.repository';

function setup() {
  const contacts = fake<ContactsService>({ find: jest.fn(async () => ({ username: 'jane', email: 'known@example.com' })) });
  const deliveries = fake<DeliveriesRepository>({ insert: jest.fn() });
  const outbox = fake<Outbox>({ enqueue: jest.fn() });
  return { deliveries, outbox, announce: new AnnounceRun(contacts, deliveries, outbox) };
}

describe('AnnounceRun', () => {
  it('email_captured: the customer webhook is stored and the bus event enqueued', async () => {
    const s = setup();
    await s.announce.execute(anAccount(), anAutomation({ webhook_url: 'https://hooks.example.com/x' }), aRun(), 'email_captured', 'jane@example.com', NOW);
    expect(s.deliveries.insert).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'email_captured', url: 'https://hooks.example.com/x', payload: expect.objectContaining({ event: 'email_captured', run_id: 42, contact: { ig_id: 'person-1', username: 'jane', email: 'jane@example.com' } }) }),
    );
    expect(s.outbox.enqueue).toHaveBeenCalledWith(AutomationEmailCaptured, expect.objectContaining({ email: 'jane@example.com', automationId: '7', runId: '42', tags: ['lead'] }));
  });

  it('link_sent without webhook_url: only the bus event, with the contact’s email and the link', async () => {
    const s = setup();
    await s.announce.execute(anAccount(), anAutomation({ track_clicks: true }), aRun(), 'link_sent', null, NOW);
    expect(s.deliveries.insert).not.toHaveBeenCalled();
    expect(s.outbox.enqueue).toHaveBeenCalledWith(AutomationLinkSent, expect.objectContaining({ email: 'known@example.com', linkUrl: 'https://example.com/guide', tracked: true }));
  });
});
