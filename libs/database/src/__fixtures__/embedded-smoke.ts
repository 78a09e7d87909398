/**
 * Run in a child Node process by embedded.integration-spec.ts (PGlite cannot start inside Jest's VM):
 * `node -r libs/testing/jest/register-ts.cjs embedded-smoke.ts <dataDir>`. Exercises the embedded
 * default end to end over pglite-socket and prints one JSON line with what it observed.
 */
import 'reflect-metadata';
import { getDataSourceToken } from '@nestjs/typeorm';
import { BaseConfig, createServiceApp, type ServiceDefinition } from '@platform/platform';
import { DataSource } from 'typeorm';
import { DatabaseModule } from '../database.module';
import { claimDue } from '../claim-due';
import { buildDataSourceOptions } from '../data-source-options';
import { ensureEmbeddedPostgres, stopEmbeddedPostgres } from '../embedded-postgres';
import { runMigrations } from '../migrations';
import { withTransaction } from '../transaction';
import { Note, noteMigrations } from './notes';

function dataSource(url: string, schema: string): DataSource {
  return new DataSource(
    buildDataSourceOptions({ url, schema, applicationName: `smoke-${schema}`, entities: [Note], migrations: noteMigrations, embedded: true }),
  );
}

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const first = await ensureEmbeddedPostgres(dataDir);
  const again = await ensureEmbeddedPostgres(dataDir);

  // Two services in two schemas, each with two concurrent migration runners.
  const a1 = await dataSource(first.url, 'svc_a').initialize();
  const a2 = await dataSource(first.url, 'svc_a').initialize();
  const b = await dataSource(first.url, 'svc_b').initialize();
  const [appliedA1, appliedA2, appliedB] = await Promise.all([runMigrations(a1), runMigrations(a2), runMigrations(b)]);

  const version = (await a1.query('SELECT version() AS v'))[0].v as string;
  const notes = a1.getRepository(Note);
  const saved = await notes.save(notes.create({ body: 'kept', meta: { n: 1 } }));
  await withTransaction(a1, async (m) => {
    await m.getRepository(Note).save({ body: 'also kept' });
  });
  await withTransaction(a1, async (m) => {
    await m.getRepository(Note).save({ body: 'rolled back' });
    throw new Error('rollback');
  }).catch(() => undefined);
  await b.getRepository(Note).save({ body: 'in b' });

  await a1.query(`INSERT INTO svc_a.jobs (run_at) SELECT now() - make_interval(secs => g) FROM generate_series(1, 6) g`);
  const claims = await Promise.all(
    [a1, a2].map((ds) => claimDue<{ id: number }>(ds, { table: 'svc_a.jobs', where: `status = 'pending' AND run_at <= now()`, orderBy: 'run_at', limit: 4, lease: { column: 'claimed_until', seconds: 60 } })),
  );

  const runs = (await a1.query(`SELECT name FROM svc_a.migration_runs ORDER BY name`)).map((r: { name: string }) => r.name);
  const migrationsTables = (
    await a1.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'migrations' ORDER BY table_schema`)
  ).map((r: { table_schema: string }) => r.table_schema);
  await Promise.all([a1.destroy(), a2.destroy(), b.destroy()]);
  await stopEmbeddedPostgres(dataDir);

  // Persisted under DATA_DIR: a new instance sees the rows and has nothing left to migrate.
  const reopened = await ensureEmbeddedPostgres(dataDir);
  const a3 = await dataSource(reopened.url, 'svc_a').initialize();
  const appliedAfterRestart = await runMigrations(a3);
  const bodies = (await a3.getRepository(Note).find({ order: { body: 'ASC' } })).map((n) => n.body);
  await a3.destroy();
  await stopEmbeddedPostgres(dataDir);

  // Two services booted through the platform with DATABASE_URL unset share one instance, one schema each;
  // the instance stops when the last of them closes.
  const service = (name: string, schema: string): ServiceDefinition => ({
    name,
    port: 0,
    schema,
    config: BaseConfig,
    module: () => ({ module: class SmokeModule {}, imports: [DatabaseModule.forRoot({ entities: [Note], migrations: noteMigrations })] }),
  });
  const env = { DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'silent' };
  const [one, two] = await Promise.all([
    createServiceApp(service('one-api', 'svc_one'), { env }),
    createServiceApp(service('two-api', 'svc_two'), { env }),
  ]);
  const dsOne = one.app.get<DataSource>(getDataSourceToken());
  const dsTwo = two.app.get<DataSource>(getDataSourceToken());
  const moduleUrls = [(dsOne.options as { url: string }).url, (dsTwo.options as { url: string }).url];
  await dsOne.getRepository(Note).save({ body: 'one' });
  const moduleSchemas = (
    await dsTwo.query(`SELECT table_schema, count(*)::int AS n FROM information_schema.tables WHERE table_name = 'notes' GROUP BY 1 ORDER BY 1`)
  ).map((r: { table_schema: string }) => r.table_schema);
  const twoNotes = await dsTwo.getRepository(Note).count();
  await one.app.close();
  const stillServing = (await dsTwo.query('SELECT 1 AS ok'))[0].ok === 1;
  await two.app.close();
  const instancesLeft = (globalThis as unknown as Record<symbol, Map<string, unknown>>)[Symbol.for('platform.database.embeddedPostgres')].size;

  process.stdout.write(
    `${JSON.stringify({
      sameInstance: first.url === again.url,
      version,
      appliedA: [appliedA1, appliedA2],
      appliedB,
      savedId: saved.id,
      claims: claims.map((rows) => rows.map((r) => r.id)),
      runs,
      migrationsTables,
      appliedAfterRestart,
      bodies,
      moduleSameUrl: moduleUrls[0] === moduleUrls[1],
      moduleSchemas,
      twoNotes,
      stillServing,
      instancesLeft,
    })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
