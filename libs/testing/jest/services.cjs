'use strict';
// Probing and embedded fallbacks shared by global-setup.cjs and global-teardown.cjs. Plain CommonJS:
// it runs in Jest's main process, outside the test VM, where PGlite's dynamic import() works.
const net = require('node:net');

const DEFAULTS = {
  database: 'postgres://postgres@127.0.0.1:5432/postgres',
  amqp: 'amqp://guest:guest@127.0.0.1:5672',
  redis: 'redis://127.0.0.1:6379',
};
const PROBE_TIMEOUT_MS = Number(process.env.TEST_PROBE_TIMEOUT_MS || 1500);
/** Name of the env variable that carries the probe result to later projects and to the workers. */
const STATE_VAR = 'PLATFORM_TEST_SERVICES';

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function probePostgres(url) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  try {
    await withTimeout(client.connect(), PROBE_TIMEOUT_MS, 'PostgreSQL');
    await withTimeout(client.query('SELECT 1'), PROBE_TIMEOUT_MS, 'PostgreSQL');
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function probeAmqp(url) {
  const amqp = require('amqplib');
  const connection = await withTimeout(amqp.connect(url, { timeout: PROBE_TIMEOUT_MS }), PROBE_TIMEOUT_MS, 'RabbitMQ');
  await connection.close().catch(() => undefined);
}

function probeRedis(url) {
  const parsed = new URL(url);
  const host = parsed.hostname || '127.0.0.1';
  const port = Number(parsed.port || 6379);
  const password = decodeURIComponent(parsed.password || '');
  const username = decodeURIComponent(parsed.username || '');
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let buffer = '';
    const done = (err) => {
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(new Error(`Redis: no answer within ${PROBE_TIMEOUT_MS} ms`)));
    socket.on('error', done);
    socket.on('connect', () => {
      if (password) socket.write(username ? `AUTH ${username} ${password}\r\n` : `AUTH ${password}\r\n`);
      socket.write('PING\r\n');
    });
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      if (buffer.includes('+PONG')) done();
      else if (buffer.startsWith('-') && buffer.includes('\r\n')) done(new Error(`Redis: ${buffer.trim()}`));
    });
  });
}

const outcome = (promise) => promise.then(() => null, (err) => (err && err.message) || String(err));

/** Probe the three servers in parallel; returns which ones answered. */
async function probeAll(env = process.env) {
  const urls = {
    database: env.TEST_DATABASE_URL || DEFAULTS.database,
    amqp: env.TEST_AMQP_URL || DEFAULTS.amqp,
    redis: env.TEST_REDIS_URL || DEFAULTS.redis,
  };
  const [database, amqp, redis] = await Promise.all([
    outcome(probePostgres(urls.database)),
    outcome(probeAmqp(urls.amqp)),
    outcome(probeRedis(urls.redis)),
  ]);
  return { urls, errors: { database, amqp, redis } };
}

/**
 * Starts an in-memory PGlite on a free loopback port, served the way the database lib serves its
 * embedded instance (one protocol unit of one connection at a time: libs/pglite-server).
 */
async function startEmbeddedPostgres() {
  require('./register-ts.cjs');
  const { serveSession } = require('../../pglite-server/src/session-server.ts');
  const { PGlite } = await import('@electric-sql/pglite');
  // The extensions of the database lib's embedded instance (pgvector for knowledge-api).
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { citext } = await import('@electric-sql/pglite/contrib/citext');
  const db = await PGlite.create('memory://', { extensions: { vector, pg_trgm, citext } });
  const server = await serveSession(db, { host: '127.0.0.1', port: 0, maxConnections: 200 });
  const url = `postgres://postgres@${server.host}:${server.port}/postgres`;
  return {
    url,
    async stop() {
      await server.stop().catch(() => undefined);
      await db.close().catch(() => undefined);
    },
  };
}

module.exports = { DEFAULTS, STATE_VAR, probeAll, probePostgres, probeAmqp, probeRedis, startEmbeddedPostgres };
