import type { Database } from '@platform/database';
import type { OutboxRelay, OutboxRow } from '@platform/messaging';
import { DatabaseError } from 'pg';
import { TRACK_BATCHES_IN_FLIGHT, TRACK_EVENTS_LEASE_SECONDS, TrackRepository, type TrackWrite } from './track.repository';

const row = { contact_id: 'cnt_1', email: 'a@x.io', subscribed: true, inserted: true, previous_subscribed: null, created_at: new Date(0) };

/**
 * A Database that records which way each statement went. Batch statements answer a row per write
 * (its new contact id), after a turn of the event loop, or are refused by PostgreSQL when
 * `failBatches` is set.
 */
function fakeDatabase(inTransaction: boolean, failBatches = false) {
  const calls: Array<{ via: 'prepared' | 'rows'; name?: string; text: string; params: unknown[] }> = [];
  const manager = { marker: 'manager' };
  const db = {
    schema: 'email_t',
    inTransaction,
    manager,
    repository: () => ({ metadata: { tablePath: 'email_t.outbox' } }),
    prepared: async (name: string, text: string, params: unknown[]) => {
      calls.push({ via: 'prepared', name, text, params });
      // a batch writing a1@x.io answers last
      for (let turns = (params[1] as string[]).includes('a1@x.io') ? 4 : 1; turns > 0; turns--) await new Promise((resolve) => setImmediate(resolve));
      if (name !== 'email_track_batch') return [{ ...row, contact_id: params[2] }];
      if (failBatches && (params[0] as unknown[]).length > 1) throw new DatabaseError('invalid input syntax for type json', 0, 'error');
      return (params[2] as string[]).map((id, i) => ({ ...row, ord: String(i + 1), contact_id: id, outbox_id: `ob_${id}` }));
    },
    rows: async (text: string, params: unknown[]) => (calls.push({ via: 'rows', text, params }), [row]),
  };
  const enqueued: unknown[] = [];
  const published: OutboxRow[][] = [];
  const relay = { enqueued: (m: unknown) => enqueued.push(m), publishClaimed: async (rows: OutboxRow[]) => void published.push(rows) };
  return { repo: new TrackRepository(db as unknown as Database, relay as unknown as OutboxRelay), calls, enqueued, published, manager };
}

const write = (n: number, over: Partial<TrackWrite> = {}): TrackWrite => ({
  projectId: '00000000-0000-0000-0000-000000000001',
  email: `a${n}@x.io`,
  newContactId: `cnt_${n}`,
  subscribed: undefined,
  patch: { set: {}, unset: [] },
  eventId: `evt_${n}`,
  name: 'signed_up',
  properties: null,
  envelope: { id: '00000000-0000-0000-0000-000000000002', type: 'email.event_tracked', source: 'email-api', occurredAt: new Date(0), correlationId: null },
  ...over,
});

describe('TrackRepository.track', () => {
  it('group-commits writes without `subscribed`: alone at once, under load those queued meanwhile in one batch statement', async () => {
    const { repo, calls, enqueued, published } = fakeDatabase(false);
    const n = TRACK_BATCHES_IN_FLIGHT + 3;
    const rows = await Promise.all(Array.from({ length: n }, (_, i) => repo.track(write(i))));
    // each caller gets its own contact back
    expect(rows.map((r) => r.contactId)).toEqual(Array.from({ length: n }, (_, i) => `cnt_${i}`));
    expect(calls.every((c) => c.via === 'prepared' && c.name === 'email_track_batch')).toBe(true);
    expect(calls.map((c) => (c.params[0] as unknown[]).length)).toEqual([...Array(TRACK_BATCHES_IN_FLIGHT).fill(1), 3]);
    expect(calls[0].text).toContain('INSERT INTO email_t.outbox');
    // double opt-in is decided inside the same statement (no extra round trip when it is off)
    expect(calls[0].text).toContain('FROM email_t.opt_in_settings');
    // each batch's outbox rows are written claimed and published by this process once committed (no relay round)
    expect(calls[0].text).toContain('claimed_until');
    expect(calls[0].params[13]).toBe(TRACK_EVENTS_LEASE_SECONDS);
    expect(enqueued).toEqual([]);
    // one publish per batch, of that batch's rows (in the order their statements committed)
    const batches = (ids: string[][]) => ids.map((b) => b.join()).sort();
    expect(batches(published.map((rows) => rows.map((r) => r.id)))).toEqual(batches(calls.map((c) => (c.params[2] as string[]).map((id) => `ob_${id}`))));
  });

  it('publishes each batched write\'s event as the statement stored it (the EmailEventTrackedData contract)', async () => {
    const { repo, published } = fakeDatabase(false);
    const occurredAt = new Date('2026-11-28T10:00:00.000Z');
    await repo.track(write(7, { name: 'viewed', properties: { plan: 'pro' }, envelope: { id: 'env-7', type: 'email.event_tracked', source: 'email-api', occurredAt, correlationId: 'req-7' } }));
    expect(published).toEqual([
      [
        {
          id: 'ob_cnt_7',
          event_id: 'env-7',
          type: 'email.event_tracked',
          source: 'email-api',
          occurred_at: occurredAt,
          correlation_id: 'req-7',
          data: { projectId: '00000000-0000-0000-0000-000000000001', contactId: 'cnt_7', email: 'a@x.io', event: 'viewed', eventId: 'evt_7', properties: { plan: 'pro' }, contactCreated: true },
        },
      ],
    ]);
  });

  it('puts a contact once in a batch: its second write waits for the next one', async () => {
    const { repo, calls } = fakeDatabase(false);
    const held = Array.from({ length: TRACK_BATCHES_IN_FLIGHT }, (_, i) => repo.track(write(100 + i)));
    const queued = [repo.track(write(1)), repo.track(write(1, { newContactId: 'cnt_again', eventId: 'evt_again' })), repo.track(write(2))];
    await Promise.all([...held, ...queued]);
    expect(calls.slice(TRACK_BATCHES_IN_FLIGHT).map((c) => c.params[5])).toEqual([['evt_1', 'evt_2'], ['evt_again']]);
  });

  it('keeps a contact out of a batch while a running one writes it: its writes commit in order', async () => {
    const { repo, calls } = fakeDatabase(false);
    const running = [repo.track(write(1)), repo.track(write(100))];
    const queued = [repo.track(write(1, { newContactId: 'cnt_again', eventId: 'evt_again' })), repo.track(write(2))];
    await Promise.all([...running, ...queued]);
    expect(calls.map((c) => c.params[5])).toEqual([['evt_1'], ['evt_100'], ['evt_2'], ['evt_again']]);
  });

  it('retries the writes of a failed batch one by one', async () => {
    const { repo, calls } = fakeDatabase(false, true);
    const rows = await Promise.all(Array.from({ length: TRACK_BATCHES_IN_FLIGHT + 2 }, (_, i) => repo.track(write(i))));
    expect(rows.map((r) => r.contactId)).toEqual(Array.from({ length: TRACK_BATCHES_IN_FLIGHT + 2 }, (_, i) => `cnt_${i}`));
    expect(calls.filter((c) => c.name === 'email_track').map((c) => c.params[6])).toEqual(['evt_' + TRACK_BATCHES_IN_FLIGHT, 'evt_' + (TRACK_BATCHES_IN_FLIGHT + 1)]);
  });

  it('fails every write of a batch lost for another reason (it may have committed): no retry', async () => {
    const { repo, calls } = fakeDatabase(false);
    const lost = new Error('Connection terminated unexpectedly');
    const db = (repo as unknown as { db: { prepared: (...args: unknown[]) => Promise<unknown> } }).db;
    db.prepared = async (...args: unknown[]) => (calls.push({ via: 'prepared', name: String(args[0]), text: '', params: args[2] as unknown[] }), Promise.reject(lost));
    const settled = await Promise.allSettled([repo.track(write(1)), repo.track(write(2)), repo.track(write(3)), repo.track(write(4))]);
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(calls.every((c) => c.name === 'email_track_batch')).toBe(true);
  });

  it('runs a write with `subscribed` alone as the one named prepared statement', async () => {
    const { repo, calls, enqueued, manager } = fakeDatabase(false);
    expect(await repo.track(write(1, { subscribed: false }))).toMatchObject({ contactId: 'cnt_1', contactCreated: true, previousSubscribed: null });
    expect(calls.map((c) => [c.via, c.name])).toEqual([['prepared', 'email_track']]);
    expect(calls[0].text).toContain('confirmation_due_at');
    expect(enqueued).toEqual([manager]);
  });

  it('joins the open transaction (a prepared statement would run on a connection of its own)', async () => {
    const { repo, calls, enqueued, manager } = fakeDatabase(true);
    await repo.track(write(1));
    expect(calls.map((c) => c.via)).toEqual(['rows']);
    expect(enqueued).toEqual([manager]);
  });
});
