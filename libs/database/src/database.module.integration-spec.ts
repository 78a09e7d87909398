import { Body, Controller, Get, Module, Post, type DynamicModule } from '@nestjs/common';
import { InjectRepository, TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { BaseConfig, MIGRATION_RUNNER, type MigrationRunner, type ServiceDefinition } from '@platform/platform';
import { createTestApp, createTestDatabase, testServices, type TestApp } from '@platform/testing';
import { IsString } from 'class-validator';
import type { DataSource, Repository } from 'typeorm';
import { Note, noteMigrations } from './__fixtures__/notes';
import { DatabaseModule } from './database.module';

class CreateNoteDto {
  @IsString()
  body: string;
}

@Controller('notes')
class NotesController {
  constructor(@InjectRepository(Note) private readonly notes: Repository<Note>) {}

  @Post()
  create(@Body() dto: CreateNoteDto): Promise<Note> {
    return this.notes.save(this.notes.create({ body: dto.body }));
  }

  @Get()
  list(): Promise<Note[]> {
    return this.notes.find({ order: { body: 'ASC' } });
  }
}

@Module({ imports: [TypeOrmModule.forFeature([Note])], controllers: [NotesController] })
class NotesModule {}

const notesService: ServiceDefinition = {
  name: 'notes-api',
  port: 0,
  schema: 'notes',
  config: BaseConfig,
  module: (): DynamicModule => ({
    module: class NotesAppModule {},
    imports: [DatabaseModule.forRoot({ entities: [Note], migrations: noteMigrations }), NotesModule],
  }),
};

describe('DatabaseModule (real PostgreSQL, booted through createTestApp)', () => {
  let t: TestApp;
  let ds: DataSource;
  let schema: string;

  beforeAll(async () => {
    t = await createTestApp(notesService);
    ds = t.app.get<DataSource>(getDataSourceToken());
    schema = t.config.DATABASE_SCHEMA!;
  });

  afterAll(async () => {
    await t?.close();
  });

  it('uses the service schema (or the test override), with migrations applied at start', async () => {
    expect(schema).toBe(t.database?.schema ?? 'notes');
    const tables = await ds.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [schema]);
    expect(tables.map((r: { table_name: string }) => r.table_name)).toEqual(['jobs', 'migration_runs', 'migrations', 'notes']);
    expect(ds.options).toMatchObject({ synchronize: false, schema });
  });

  it('stores and reads entities over HTTP', async () => {
    await t.http.post('/notes').send({ body: 'second' }).expect(201);
    const created = await t.http.post('/notes').send({ body: 'first' }).expect(201);
    expect(created.body).toMatchObject({ body: 'first', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const list = await t.http.get('/notes').expect(200);
    expect(list.body.map((n: Note) => n.body)).toEqual(['first', 'second']);
  });

  it('reports the database as ready on /readyz', async () => {
    const res = await t.http.get('/readyz').expect(200);
    expect(res.body).toEqual({ status: 'ok', checks: { database: { status: 'up' } } });
  });

  // The embedded instance multiplexes one session: connection names exist on a real server only.
  if (!testServices().embedded) it('names its connections after the service', async () => {
    const rows = await ds.query(`SELECT DISTINCT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()`);
    expect(rows).toEqual([{ application_name: 'notes-api' }]);
  });

  it('provides the platform migration runner (nothing left to apply)', async () => {
    await expect(t.app.get<MigrationRunner>(MIGRATION_RUNNER, { strict: false }).run()).resolves.toEqual([]);
  });
});

describe('DatabaseModule start-up and readiness', () => {
  it('with DB_MIGRATE_ON_START=false leaves migrations to the migrate command, then applies them through MIGRATION_RUNNER', async () => {
    const db = await createTestDatabase();
    const t = await createTestApp(notesService, {
      DATABASE_URL: db.url,
      DATABASE_SCHEMA: db.schema ?? 'notes',
      DB_MIGRATE_ON_START: 'false',
    });
    try {
      const ds = t.app.get<DataSource>(getDataSourceToken());
      const schema = db.schema ?? 'notes';
      const [{ t: before }] = await ds.query(`SELECT to_regclass($1) AS t`, [`${schema}.notes`]);
      expect(before).toBeNull();
      await expect(t.app.get<MigrationRunner>(MIGRATION_RUNNER, { strict: false }).run()).resolves.toEqual([
        'CreateNotes1700000000000',
        'CreateJobs1700000000001',
      ]);
      await t.http.post('/notes').send({ body: 'after migrate' }).expect(201);
    } finally {
      await t.close();
      await db.drop();
    }
  });

  it('fails start-up with a clear message (and no password) when the server does not answer', async () => {
    await expect(
      createTestApp(notesService, { DATABASE_URL: 'postgres://svc:s3cret@127.0.0.1:1/notes', DB_CONNECT_TIMEOUT_MS: '1000' }),
    ).rejects.toThrow(/^Cannot connect to PostgreSQL at 127\.0\.0\.1:1\/notes: .*Check DATABASE_URL/);
    await expect(createTestApp(notesService, { DATABASE_URL: 'postgres://svc:s3cret@127.0.0.1:1/notes' })).rejects.not.toThrow(/s3cret/);
  });

  it('reports the database as down on /readyz once the connection is gone', async () => {
    const t = await createTestApp(notesService);
    try {
      await t.app.get<DataSource>(getDataSourceToken()).destroy();
      const res = await t.http.get('/readyz').expect(503);
      expect(res.body.checks.database.status).toBe('down');
    } finally {
      await t.close();
    }
  });
});
