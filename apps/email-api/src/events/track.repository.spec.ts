import type { Database } from '@platform/database';
import type { OutboxRelay } from '@platform/messaging';
import { TrackRepository, type TrackWrite } from './track.repository';

const row = { contact_id: 'cnt_1', email: 'a@x.io', subscribed: true, inserted: true, previous_subscribed: null, created_at: new Date(0) };

/** A Database that records which way each statement went. */
function fakeDatabase(inTransaction: boolean) {
  const calls: Array<{ via: 'prepared' | 'rows'; name?: string; text: string }> = [];
  const manager = { marker: 'manager' };
  const db = {
    schema: 'email_t',
    inTransaction,
    manager,
    repository: () => ({ metadata: { tablePath: 'email_t.outbox' } }),
    prepared: async (name: string, text: string) => (calls.push({ via: 'prepared', name, text }), [row]),
    rows: async (text: string) => (calls.push({ via: 'rows', text }), [row]),
  };
  const enqueued: unknown[] = [];
  const relay = { enqueued: (m: unknown) => enqueued.push(m) };
  return { repo: new TrackRepository(db as unknown as Database, relay as unknown as OutboxRelay), calls, enqueued, manager };
}

const write: TrackWrite = {
  projectId: '00000000-0000-0000-0000-000000000001',
  email: 'a@x.io',
  newContactId: 'cnt_1',
  subscribed: undefined,
  patch: { set: {}, unset: [] },
  eventId: 'evt_1',
  name: 'signed_up',
  properties: null,
  envelope: { id: '00000000-0000-0000-0000-000000000002', type: 'email.event_tracked', source: 'email-api', occurredAt: new Date(0), correlationId: null },
};

describe('TrackRepository.track', () => {
  it('runs alone as the one named prepared statement when no transaction is open, and wakes the relay', async () => {
    const { repo, calls, enqueued, manager } = fakeDatabase(false);
    expect(await repo.track(write)).toMatchObject({ contactId: 'cnt_1', contactCreated: true, previousSubscribed: null });
    await repo.track(write);
    expect(calls.map((c) => [c.via, c.name])).toEqual([
      ['prepared', 'email_track'],
      ['prepared', 'email_track'],
    ]);
    expect(calls[0].text).toBe(calls[1].text);
    expect(calls[0].text).toContain('INSERT INTO email_t.outbox');
    // double opt-in is decided inside the same statement (no extra round trip when it is off)
    expect(calls[0].text).toContain('FROM email_t.opt_in_settings');
    expect(calls[0].text).toContain('confirmation_due_at');
    expect(enqueued).toEqual([manager, manager]);
  });

  it('joins the open transaction (a prepared statement would run on a connection of its own)', async () => {
    const { repo, calls, enqueued, manager } = fakeDatabase(true);
    await repo.track(write);
    expect(calls.map((c) => c.via)).toEqual(['rows']);
    expect(enqueued).toEqual([manager]);
  });
});
