import { Controller, Get, Injectable, Module, UseGuards, type CanActivate, type DynamicModule } from '@nestjs/common';
import { EnvelopeErrorFilter } from '@platform/errors';
import { BaseConfig, type ServiceDefinition } from '@platform/platform';
import { createTestApp, testServices, type TestApp } from '@platform/testing';
import { Client } from 'pg';
import { noteMigrations } from './__fixtures__/notes';
import { Database } from './database';
import { DatabaseModule } from './database.module';

@Injectable()
class ProbeRepository {
  constructor(private readonly db: Database) {}

  /** A query that is still running when its connection is killed. */
  async slow(): Promise<number> {
    const rows = await this.db.rows<{ n: number }>('SELECT 1 AS n FROM pg_sleep(5)');
    return rows[0].n;
  }

  async count(): Promise<number> {
    const row = await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.db.table('notes')}`);
    return row?.n ?? 0;
  }
}

/** A guard that reads the database (as key and session guards do). */
@Injectable()
class SlowGuard implements CanActivate {
  constructor(private readonly probe: ProbeRepository) {}

  async canActivate(): Promise<boolean> {
    return (await this.probe.slow()) === 1;
  }
}

@Controller('probe')
class ProbeController {
  constructor(private readonly probe: ProbeRepository) {}

  @Get('slow')
  async slow(): Promise<{ n: number }> {
    return { n: await this.probe.slow() };
  }

  @Get('guarded')
  @UseGuards(SlowGuard)
  guarded(): { ok: boolean } {
    return { ok: true };
  }

  @Get('count')
  async count(): Promise<{ n: number }> {
    return { n: await this.probe.count() };
  }
}

@Module({ controllers: [ProbeController], providers: [ProbeRepository, SlowGuard] })
class ProbeModule {}

const probeService: ServiceDefinition = {
  name: 'probe-api',
  port: 0,
  schema: 'probe',
  config: BaseConfig,
  errorFilter: () => new EnvelopeErrorFilter(),
  module: (): DynamicModule => ({
    module: class ProbeAppModule {},
    imports: [DatabaseModule.forRoot({ entities: [], migrations: noteMigrations }), ProbeModule],
  }),
};

/** Terminates every server connection of one database (the throwaway test database only). */
async function terminateConnections(serverUrl: string, database: string): Promise<number> {
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    // OFFSET 0 keeps the filter apart from the call: the planner may not run pg_terminate_backend on other rows.
    const { rows } = await client.query<{ done: boolean }>(
      'SELECT pg_terminate_backend(pid) AS done FROM (SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() OFFSET 0) AS s',
      [database],
    );
    return rows.filter((r) => r.done).length;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// pg_terminate_backend needs a real server; the embedded fallback serves one session to everything.
const describeOnServer = testServices().embedded ? describe.skip : describe;

describeOnServer('PostgreSQL connections killed mid-request (real server)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(probeService, { DB_POOL_MAX: '4' });
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Sends GET `path`, waits until its slow query runs on the server, kills every connection of the test database, answers the response. */
  async function killedDuring(path: string) {
    const slow = t.http.get(path).then((r) => r);
    const server = testServices().databaseUrl;
    const database = t.database!.name;
    const client = new Client({ connectionString: server });
    await client.connect();
    try {
      for (let i = 0; i < 200; i++) {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE '%pg_sleep(5)%' AND state = 'active'",
          [database],
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await client.end();
    }
    expect(await terminateConnections(server, database)).toBeGreaterThan(0);
    return slow;
  }

  /**
   * Serves again without a restart: the pool drops each dead idle connection when it next hands it
   * out (that request answers 503 too), so a few requests may go before a fresh connection serves one.
   */
  async function servesAgain(): Promise<void> {
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      const res = await t.http.get('/probe/count');
      status = res.status;
      if (status === 200) expect(res.body).toEqual({ n: 0 });
      else expect(status).toBe(503);
    }
    expect(status).toBe(200);
  }

  it('answers 503 in the error shape while its connection is killed, then serves again without a restart', async () => {
    await t.http.get('/probe/count').expect(200, { n: 0 });
    const res = await killedDuring('/probe/slow');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'DATABASE_UNAVAILABLE', statusCode: 503 },
    });
    expect(res.headers['retry-after']).toBeDefined();

    // Idle pooled connections were killed too: the pool replaces them, no restart needed.
    await servesAgain();
    await t.http.get('/readyz').expect(200);
  });

  it('answers 503 too when the connection is lost in a guard, before any handler ran', async () => {
    const res = await killedDuring('/probe/guarded');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, error: { code: 'DATABASE_UNAVAILABLE', statusCode: 503 } });
    expect(res.headers['retry-after']).toBe('1');
    await servesAgain();
  });
});
