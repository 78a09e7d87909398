import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const jestDir = path.resolve(__dirname, '../jest');

/**
 * The global setup runs outside Jest's VM; here it runs in a child Node process (as Jest runs it),
 * twice, as in a multi-project run, then the teardown. The child prints what it observed as JSON.
 */
const SCRIPT = `
const setup = require(${JSON.stringify(path.join(jestDir, 'global-setup.cjs'))});
const teardown = require(${JSON.stringify(path.join(jestDir, 'global-teardown.cjs'))});
const { Client } = require('pg');
(async () => {
  const out = {};
  try {
    await setup();
    out.first = JSON.parse(process.env.PLATFORM_TEST_SERVICES);
    out.env = { db: process.env.TEST_DATABASE_URL, amqp: process.env.TEST_AMQP_URL ?? null, redis: process.env.TEST_REDIS_URL ?? null, embedded: process.env.TEST_EMBEDDED ?? null };
    await setup();
    out.second = JSON.parse(process.env.PLATFORM_TEST_SERVICES);
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    out.select = (await client.query('SELECT 1 + 1 AS two')).rows[0].two;
    await client.end();
    await teardown();
    await teardown();
  } catch (err) {
    out.error = err.message;
  }
  process.stderr.write('RESULT ' + JSON.stringify(out) + '\\n');
  process.exit(0);
})();
`;

async function runSetup(env: Record<string, string>): Promise<{ stdout: string; result: Record<string, any> }> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env, TEST_PROBE_TIMEOUT_MS: '1000' };
  delete childEnv.PLATFORM_TEST_SERVICES;
  delete childEnv.TEST_EMBEDDED;
  const { stdout, stderr } = await run(process.execPath, ['-e', SCRIPT], { env: childEnv as NodeJS.ProcessEnv, timeout: 60_000 });
  const line = stderr.split('\n').find((l) => l.startsWith('RESULT '));
  return { stdout, result: JSON.parse(line!.slice('RESULT '.length)) };
}

// Ports where nothing listens (the probe must fail fast and cleanly).
const DOWN = {
  TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres',
  TEST_AMQP_URL: 'amqp://guest:guest@127.0.0.1:1',
  TEST_REDIS_URL: 'redis://127.0.0.1:1',
};

describe('jest global setup', () => {
  it('falls back to embedded PGlite and in-process messaging when nothing answers, saying so in one line', async () => {
    const { stdout, result } = await runSetup({ ...DOWN, REQUIRE_SERVICES: '' });
    expect(result.error).toBeUndefined();
    expect(stdout.trim().split('\n')).toEqual([
      '[testing] not reachable, using fallbacks: PostgreSQL → embedded PGlite, RabbitMQ → in-process event bus, Redis → in-memory (set REQUIRE_SERVICES=1 to fail instead)',
    ]);
    expect(result.first).toMatchObject({ embedded: true, databaseUrl: expect.stringMatching(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/) });
    expect(result.first.amqpUrl).toBeUndefined();
    expect(result.env).toEqual({ db: result.first.databaseUrl, amqp: null, redis: null, embedded: '1' });
    // The second project reuses the probe and the instance.
    expect(result.second).toEqual(result.first);
    expect(result.select).toBe(2);
  }, 90_000);

  it('probes and starts nothing for the unit tier (TEST_TIER=unit), even with REQUIRE_SERVICES=1', async () => {
    const { stdout } = await run(
      process.execPath,
      ['-e', `require(${JSON.stringify(path.join(jestDir, 'global-setup.cjs'))})().then(() => process.stdout.write(JSON.stringify({ state: process.env.PLATFORM_TEST_SERVICES ?? null, embedded: process.env.TEST_EMBEDDED ?? null })))`],
      { env: { ...process.env, ...DOWN, REQUIRE_SERVICES: '1', TEST_TIER: 'unit', PLATFORM_TEST_SERVICES: '', TEST_EMBEDDED: '' }, timeout: 60_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ state: '', embedded: '' });
  });

  it('fails the run with REQUIRE_SERVICES=1, naming every missing server', async () => {
    const { result } = await runSetup({ ...DOWN, REQUIRE_SERVICES: '1' });
    expect(result.error).toMatch(/REQUIRE_SERVICES=1 but these test servers are not reachable/);
    expect(result.error).toContain('PostgreSQL (postgres://postgres@127.0.0.1:1/postgres)');
    expect(result.error).toContain('RabbitMQ (amqp://guest:guest@127.0.0.1:1)');
    expect(result.error).toContain('Redis (redis://127.0.0.1:1)');
  });

  // Where this run itself found the three real servers (CI always), the setup finds them again.
  const services = JSON.parse(process.env.PLATFORM_TEST_SERVICES ?? '{}');
  const allReal = !services.embedded && services.amqpUrl && services.redisUrl;
  if (allReal) it('exports the servers it found and prints nothing when all answer', async () => {
    const { stdout, result } = await runSetup({
      TEST_DATABASE_URL: services.databaseUrl,
      TEST_AMQP_URL: services.amqpUrl,
      TEST_REDIS_URL: services.redisUrl,
      REQUIRE_SERVICES: '1',
    });
    expect(stdout).toBe('');
    expect(result.first).toMatchObject({ embedded: false, databaseUrl: services.databaseUrl, amqpUrl: services.amqpUrl, redisUrl: services.redisUrl });
    expect(result.env.embedded).toBeNull();
    expect(result.select).toBe(2);
  });
});
