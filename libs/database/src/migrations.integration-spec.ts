import { createTestDatabase, testServices, type TestDatabase } from '@platform/testing';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Note, noteMigrations } from './__fixtures__/notes';
import { buildDataSourceOptions } from './data-source-options';
import { pendingMigrations, runMigrations } from './migrations';

// Raw DataSources outside an app: keep TypeORM's schema-build chatter (debug) out of the output.
Logger.overrideLogger(['error', 'warn']);

describe('runMigrations (real PostgreSQL)', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];
  let schemaCounter = 0;

  const open = async (schema: string) => {
    const ds = new DataSource(
      buildDataSourceOptions({ url: db.url, schema, applicationName: 'migrations-spec', entities: [Note], migrations: noteMigrations }),
    );
    sources.push(ds);
    return ds.initialize();
  };
  // On the embedded fallback the throwaway part is a schema; use names under it.
  const freshSchema = () => `${db.schema ?? 'svc'}_${++schemaCounter}`;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await Promise.all(sources.map((s) => (s.isInitialized ? s.destroy() : undefined)));
    await db.drop();
  });

  it('creates the schema, applies pending migrations once and keeps its table inside the schema', async () => {
    const schema = freshSchema();
    const ds = await open(schema);
    expect(await pendingMigrations(ds)).toEqual(['CreateNotes1700000000000', 'CreateJobs1700000000001']);
    expect(await runMigrations(ds)).toEqual(['CreateNotes1700000000000', 'CreateJobs1700000000001']);
    expect(await runMigrations(ds)).toEqual([]);
    expect(await pendingMigrations(ds)).toEqual([]);

    const tables = await ds.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema]);
    expect(tables.map((t: { table_name: string }) => t.table_name)).toEqual(['jobs', 'migration_runs', 'migrations', 'notes']);
    const elsewhere = await ds.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'notes' AND table_schema <> $1`, [schema]);
    expect(elsewhere).toEqual([]);

    const saved = await ds.getRepository(Note).save({ body: 'hello' });
    expect(saved.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lets two concurrent runners (separate connections) apply each migration exactly once', async () => {
    const schema = freshSchema();
    const [a, b] = await Promise.all([open(schema), open(schema)]);
    const results = await Promise.all([runMigrations(a), runMigrations(b)]);
    const applied = results.flat().sort();
    expect(applied).toEqual(['CreateJobs1700000000001', 'CreateNotes1700000000000']);
    expect(results.some((r) => r.length === 0)).toBe(true);
    const runs = await a.query(`SELECT name FROM ${schema}.migration_runs ORDER BY name`);
    expect(runs).toEqual([{ name: 'CreateJobs' }, { name: 'CreateNotes' }]);
  });

  // A real server only: the embedded instance has one session, where advisory locks never block
  // (runMigrations serialises in-process there; embedded.integration-spec.ts covers it).
  if (!testServices().embedded) it('waits for the advisory lock held by another session before migrating', async () => {
    const schema = freshSchema();
    const ds = await open(schema);
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(720240, hashtext($1))`, [schema]);
      let finished = false;
      const running = runMigrations(ds).then((names) => {
        finished = true;
        return names;
      });
      // The runner is blocked on the lock: wait until PostgreSQL reports it waiting, then check.
      for (;;) {
        const waiting = await holder.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        if (waiting.rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(finished).toBe(false);
      await holder.query(`SELECT pg_advisory_unlock(720240, hashtext($1))`, [schema]);
      await expect(running).resolves.toHaveLength(2);
    } finally {
      await holder.end();
    }
  });

  it('rolls every migration of the run back when one fails', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const schema = freshSchema();
    class Broken1700000000002 {
      name = 'Broken1700000000002';
      async up(q: { query(sql: string): Promise<unknown> }) {
        await q.query('SELECT * FROM table_that_does_not_exist');
      }
      async down() {}
    }
    const ds = new DataSource(
      buildDataSourceOptions({
        url: db.url,
        schema,
        applicationName: 'migrations-spec',
        entities: [Note],
        migrations: [...noteMigrations, Broken1700000000002],
      }),
    );
    sources.push(ds);
    await ds.initialize();
    await expect(runMigrations(ds)).rejects.toThrow(/table_that_does_not_exist/);
    const notes = await ds.query(`SELECT to_regclass($1) AS t`, [`${schema}.notes`]);
    expect(notes[0].t).toBeNull();
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('Migration "Broken1700000000002" failed'));
    logged.mockRestore();
  });
});
