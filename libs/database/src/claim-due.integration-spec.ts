import { Logger } from '@nestjs/common';
import { createTestDatabase, type TestDatabase } from '@platform/testing';
import { DataSource } from 'typeorm';
import { Note, noteMigrations } from './__fixtures__/notes';
import { claimDue } from './claim-due';
import { buildDataSourceOptions } from './data-source-options';
import { runMigrations } from './migrations';
import { withTransaction } from './transaction';

// Raw DataSources outside an app: keep TypeORM's schema-build chatter (debug) out of the output.
Logger.overrideLogger(['error', 'warn']);

describe('claimDue and withTransaction (real PostgreSQL)', () => {
  let db: TestDatabase;
  let a: DataSource;
  let b: DataSource;
  let schema: string;
  let table: string;

  const open = (name: string) =>
    new DataSource(buildDataSourceOptions({ url: db.url, schema, applicationName: name, entities: [Note], migrations: noteMigrations })).initialize();

  beforeAll(async () => {
    db = await createTestDatabase();
    schema = db.schema ?? 'claims';
    table = `${schema}.jobs`;
    a = await open('replica-a');
    b = await open('replica-b');
    await runMigrations(a);
  });

  afterAll(async () => {
    await Promise.all([a?.destroy(), b?.destroy()]);
    await db.drop();
  });

  beforeEach(async () => {
    await a.query(`TRUNCATE ${table} RESTART IDENTITY`);
  });

  const due = { where: `status = 'pending' AND run_at <= now()`, orderBy: 'run_at ASC, id ASC' };

  it('hands each due row to one claimer only, even when two claim at the same time', async () => {
    await a.query(`INSERT INTO ${table} (run_at) SELECT now() - make_interval(secs => g) FROM generate_series(1, 40) g`);
    await a.query(`INSERT INTO ${table} (run_at) VALUES (now() + interval '1 hour')`); // not due
    const claimers = [a, b, a, b].map((ds) =>
      claimDue<{ id: number }>(ds, { table, ...due, limit: 15, lease: { column: 'claimed_until', seconds: 60 }, set: 'attempts = attempts + 1' }),
    );
    const results = await Promise.all(claimers);
    const ids = results.flat().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const attempts = await a.query(`SELECT max(attempts) AS max, count(*) FILTER (WHERE claimed_until > now())::int AS leased FROM ${table}`);
    expect(attempts[0]).toEqual({ max: 1, leased: 40 });
  });

  it('returns rows in orderBy order and skips rows whose lease has not expired', async () => {
    await a.query(
      `INSERT INTO ${table} (run_at, claimed_until) VALUES
        (now() - interval '3 min', NULL),
        (now() - interval '5 min', now() + interval '1 min'),
        (now() - interval '4 min', now() - interval '1 min'),
        (now() - interval '1 min', NULL)`,
    );
    const rows = await claimDue<{ id: number; claimed_until: Date }>(a, { table, ...due, limit: 10, lease: { column: 'claimed_until', seconds: 30 } });
    expect(rows.map((r) => r.id)).toEqual([3, 1, 4]);
    expect(rows.every((r) => r.claimed_until.getTime() > Date.now())).toBe(true);
    await expect(claimDue(b, { table, ...due, limit: 10, lease: { column: 'claimed_until', seconds: 30 } })).resolves.toEqual([]);
  });

  it('answers the named columns (and the key) with `returning`, in orderBy order', async () => {
    await a.query(`INSERT INTO ${table} (run_at) SELECT now() - make_interval(secs => g) FROM generate_series(1, 3) g`);
    const rows = await claimDue<Record<string, unknown>>(a, { table, ...due, limit: 10, lease: { column: 'claimed_until', seconds: 30 }, returning: ['status'] });
    expect(rows).toEqual([
      { id: 3, status: 'pending' },
      { id: 2, status: 'pending' },
      { id: 1, status: 'pending' },
    ]);
    await expect(claimDue(a, { table, ...due, limit: 1, set: 'attempts = 1', returning: ['status; DROP TABLE x'] })).rejects.toThrow(/returning must be a plain/);
  });

  it('claims by state change with `set` and passes params', async () => {
    await a.query(`INSERT INTO ${table} (run_at) SELECT now() - make_interval(secs => g) FROM generate_series(1, 5) g`);
    const first = await claimDue<{ id: number; status: string }>(a, {
      table,
      where: `status = $1 AND id <= $2`,
      params: ['pending', 3],
      orderBy: 'id DESC',
      limit: 2,
      set: `status = 'running'`,
    });
    expect(first.map((r) => [r.id, r.status])).toEqual([
      [3, 'running'],
      [2, 'running'],
    ]);
    const second = await claimDue<{ id: number }>(b, { table, where: `status = $1 AND id <= $2`, params: ['pending', 3], orderBy: 'id DESC', limit: 2, set: `status = 'running'` });
    expect(second.map((r) => r.id)).toEqual([1]);
  });

  it('refuses unsafe or meaningless options with a clear message', async () => {
    await expect(claimDue(a, { table: 'jobs; DROP TABLE x', ...due, limit: 1, set: 'x = 1' })).rejects.toThrow(/table must be a plain/);
    await expect(claimDue(a, { table, ...due, limit: 0, set: 'x = 1' })).rejects.toThrow(/limit must be an integer from 1 to 1000/);
    await expect(claimDue(a, { table, ...due, limit: 1 })).rejects.toThrow(/give `lease` or `set`/);
    await expect(claimDue(a, { table, ...due, limit: 1, lease: { column: 'claimed_until', seconds: 0 } })).rejects.toThrow(/lease.seconds/);
  });

  it('withTransaction commits on success and rolls back on error', async () => {
    const notes = `${schema}.notes`;
    await a.query(`DELETE FROM ${notes}`);
    await expect(withTransaction(a, (m) => m.getRepository(Note).save({ body: 'kept' }).then((n) => n.body))).resolves.toBe('kept');
    await expect(
      withTransaction(a, async (m) => {
        await m.getRepository(Note).save({ body: 'discarded' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const bodies = await a.query(`SELECT body FROM ${notes} ORDER BY body`);
    expect(bodies).toEqual([{ body: 'kept' }]);
  });
});
