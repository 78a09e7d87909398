import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createServiceApp, type BaseConfig, type ServiceDefinition } from '@platform/platform';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface TestApp<C extends BaseConfig = BaseConfig> {
  app: NestExpressApplication;
  /** supertest agent bound to the app's HTTP server: `http.get('/healthz').expect(200)`. */
  http: ReturnType<typeof request>;
  config: C;
  /** The throwaway database (undefined when the definition has no schema). */
  database?: TestDatabase;
  /** Closes the app, drops its database and removes its DATA_DIR. */
  close(): Promise<void>;
}

/** Variables a developer's shell may hold that must not leak into a test app. */
const ISOLATED = ['DATABASE_URL', 'DATABASE_SCHEMA', 'AMQP_URL', 'REDIS_URL', 'PORT', 'DATA_DIR', 'DB_MIGRATE_ON_START'];

/**
 * Boots a ServiceDefinition like `createServiceApp` does in production, on a throwaway database with
 * its migrations applied (at start), NODE_ENV=test, LOG_LEVEL=silent (TEST_LOG_LEVEL to see logs),
 * a temporary DATA_DIR, and the in-process bus / in-memory Redis unless `env` sets AMQP_URL /
 * REDIS_URL (see testServices(), createTestRabbit(), createTestRedisPrefix()). `env` wins over all.
 */
export async function createTestApp<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  env: Record<string, string | undefined> = {},
): Promise<TestApp<C>> {
  const database = def.schema && !('DATABASE_URL' in env) ? await createTestDatabase() : undefined;
  const dataDir = await mkdtemp(path.join(tmpdir(), `${def.name}-test-`));
  const base: Record<string, string | undefined> = { ...process.env };
  for (const key of ISOLATED) delete base[key];
  const fullEnv: Record<string, string | undefined> = {
    ...base,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'silent',
    DATA_DIR: dataDir,
    DB_MIGRATE_ON_START: 'true',
    ...(database ? { DATABASE_URL: database.url, DATABASE_SCHEMA: database.schema } : {}),
    ...env,
  };
  const cleanup = async () => {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  let created: { app: NestExpressApplication; config: C };
  try {
    created = await createServiceApp(def, { env: fullEnv });
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
  const { app, config } = created;
  let closed = false;
  return {
    app,
    config,
    database,
    http: request(app.getHttpServer()),
    async close() {
      if (closed) return;
      closed = true;
      try {
        await app.close();
      } finally {
        await cleanup();
      }
    },
  };
}
