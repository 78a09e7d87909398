/**
 * The built proxy (`dist/apps/autostart-proxy/main.js`) killed with SIGKILL while its idle stop of a
 * container is in progress, then started again on the same database: the stop is taken over once its
 * lease runs out, the container is stopped exactly once (one stop call reached the engine) and the
 * shared state ends `stopped`, not `stopping`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildForTest, createTestDatabase, databaseEnv, spawnBuiltApp, startFakeDockerEngine, type FakeDockerEngine, type SpawnedApp, type TestDatabase } from '@platform/testing';
import { Client } from 'pg';

async function until<T>(probe: () => T | Promise<T>, what: string): Promise<NonNullable<T>> {
  for (let i = 0; i < 1200; i++) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('autostart-proxy killed with SIGKILL during an idle stop (built service, fake Docker engine)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'autostart-crash-'));
  const children: SpawnedApp[] = [];
  let engine: FakeDockerEngine;
  let database: TestDatabase;
  let pg: Client;

  beforeAll(async () => {
    await buildForTest('autostart-proxy');
    // The container takes 800 ms to exit after SIGTERM: the stop is in progress when the proxy dies.
    engine = await startFakeDockerEngine({ containers: [{ name: 'slow', state: 'running', stopsAfterMs: 800 }] });
    database = await createTestDatabase();
    pg = new Client({ connectionString: database.url });
    await pg.connect();
    writeFileSync(
      join(dir, 'services.yaml'),
      `services:
  - name: slow
    hosts: [slow.test]
    mode: async
    upstream: http://127.0.0.1:9
    provider: docker
    target: slow
    healthCheck: /health
    idleTimeout: 1
    stopTimeout: 1
`,
    );
  });

  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await pg?.end();
    await database?.drop();
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<SpawnedApp> {
    const app = await spawnBuiltApp(
      'autostart-proxy',
      {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATA_DIR: dir,
        ...databaseEnv(database),
        AMQP_URL: '',
        AUTOSTART_CONFIG: join(dir, 'services.yaml'),
        DOCKER_HOST: engine.dockerHost,
        AUTOSTART_IDLE_CHECK_MS: '100',
        AUTOSTART_FLUSH_MS: '100',
        AUTOSTART_STOP_LEASE_MS: '300',
      },
      { timeoutMs: 60_000 },
    );
    children.push(app);
    return app;
  }

  const row = async () =>
    (await pg.query<{ status: string; stops: number }>(`SELECT status, stops FROM ${database.schema ?? 'autostart'}.workloads WHERE name = 'slow'`)).rows[0];

  it('stops the container exactly once after the restart, and leaves nothing stopping', async () => {
    const first = await start();
    await until(() => engine.stopCalls('slow').length === 1, 'the idle stop to reach the engine');
    await first.kill('SIGKILL');
    expect((await row()).status).toBe('stopping');

    await start();
    const done = await until(async () => ((await row()).status === 'stopped' ? row() : null), 'the stop to be taken over');
    expect(done).toEqual({ status: 'stopped', stops: 1 });
    expect(engine.stopCalls('slow')).toHaveLength(1);
    expect(engine.container('slow').State.Running).toBe(false);
  });
});
