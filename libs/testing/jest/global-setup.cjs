'use strict';
// Jest globalSetup for every project (tools/jest/preset.cjs). Finds PostgreSQL, RabbitMQ and Redis
// (TEST_DATABASE_URL, TEST_AMQP_URL, TEST_REDIS_URL, standard local ports by default) and exports
// what it found to the workers. With REQUIRE_SERVICES=1 a missing server fails the run; otherwise
// PostgreSQL falls back to an embedded PGlite served over pglite-socket (TEST_EMBEDDED=1) and
// RabbitMQ/Redis stay unset (in-process bus, in-memory counters), reported in one line.
//
// In a multi-project run Jest calls this once per project in the same process: the result is kept
// in process.env[STATE_VAR] (tagged with this process id) and the embedded instance in
// globalThis, so only the first call probes and at most one PGlite starts.
//
// The unit tier (TEST_TIER=unit, tiers.cjs) needs none of the servers: nothing is probed
// or started, and nothing is exported.
const { STATE_VAR, probeAll, startEmbeddedPostgres } = require('./services.cjs');
const { selectedTier } = require('./tiers.cjs');

const EMBEDDED_KEY = Symbol.for('platform.testing.embeddedPostgres');

function exportState(state) {
  process.env[STATE_VAR] = JSON.stringify(state);
  process.env.TEST_DATABASE_URL = state.databaseUrl;
  if (state.embedded) process.env.TEST_EMBEDDED = '1';
  else delete process.env.TEST_EMBEDDED;
  for (const [key, value] of [
    ['TEST_AMQP_URL', state.amqpUrl],
    ['TEST_REDIS_URL', state.redisUrl],
  ]) {
    if (value) process.env[key] = value;
    else delete process.env[key];
  }
}

function cachedState() {
  const raw = process.env[STATE_VAR];
  if (!raw) return undefined;
  try {
    const state = JSON.parse(raw);
    return state.pid === process.pid ? state : undefined;
  } catch {
    return undefined;
  }
}

module.exports = async function globalSetup() {
  if (selectedTier() === 'unit') return;
  const cached = cachedState();
  if (cached && (!cached.embedded || globalThis[EMBEDDED_KEY])) {
    exportState(cached);
    return;
  }

  const { urls, errors } = await probeAll(process.env);
  const missing = Object.entries(errors).filter(([, err]) => err !== null);
  const names = { database: `PostgreSQL (${urls.database})`, amqp: `RabbitMQ (${urls.amqp})`, redis: `Redis (${urls.redis})` };

  if (missing.length > 0 && process.env.REQUIRE_SERVICES === '1') {
    const lines = missing.map(([key, err]) => `  - ${names[key]}: ${err}`);
    throw new Error(
      `REQUIRE_SERVICES=1 but these test servers are not reachable:\n${lines.join('\n')}\n` +
        'Start them (or set TEST_DATABASE_URL / TEST_AMQP_URL / TEST_REDIS_URL), or unset REQUIRE_SERVICES to use the embedded fallbacks.',
    );
  }

  const state = {
    pid: process.pid,
    databaseUrl: urls.database,
    amqpUrl: errors.amqp === null ? urls.amqp : undefined,
    redisUrl: errors.redis === null ? urls.redis : undefined,
    embedded: false,
  };
  if (errors.database !== null) {
    if (!globalThis[EMBEDDED_KEY]) globalThis[EMBEDDED_KEY] = await startEmbeddedPostgres();
    state.databaseUrl = globalThis[EMBEDDED_KEY].url;
    state.embedded = true;
  }
  if (missing.length > 0) {
    const fallbacks = {
      database: 'PostgreSQL → embedded PGlite',
      amqp: 'RabbitMQ → in-process event bus',
      redis: 'Redis → in-memory',
    };
    process.stdout.write(
      `[testing] not reachable, using fallbacks: ${missing.map(([key]) => fallbacks[key]).join(', ')} (set REQUIRE_SERVICES=1 to fail instead)\n`,
    );
  }
  exportState(state);
};

module.exports.EMBEDDED_KEY = EMBEDDED_KEY;
