import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startService, type RunningService } from '@platform/platform';
import { createTestDatabase, createTestRabbit, testServices, type TestRabbit } from '@platform/testing';
import request from 'supertest';
import { conversationApiService } from '../src/service';
import { ADMIN_EMAIL, ADMIN_PASSWORD } from './helpers';

export interface Replicas {
  /** The running apps, sharing one database (and RabbitMQ's queues when it is available). */
  apps: RunningService[];
  http: Array<ReturnType<typeof request>>;
  /** Whether the replicas share a real RabbitMQ (else the in-process bus of this test process). */
  rabbit: boolean;
  /** Their database and schema (for a test that must reach under the app, such as holding a lock). */
  databaseUrl: string;
  schema: string;
  close(): Promise<void>;
}

/**
 * `n` replicas of the app on one throwaway database, as in a deployment with several replicas:
 * each its own process-like app (pools, workers, outbox relay, event consumers); on RabbitMQ when
 * the test services include it (unique exchange and queue names), so that their consumers compete
 * for the same queues.
 */
export async function startReplicas(n: number, env: Record<string, string | undefined> = {}): Promise<Replicas> {
  const db = await createTestDatabase();
  const rabbit: TestRabbit | undefined = testServices().amqpUrl ? await createTestRabbit() : undefined;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'conversation-replicas-'));
  const shared = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    DATABASE_SCHEMA: db.schema,
    DB_MIGRATE_ON_START: 'true',
    CONVERSATION_JWT_SECRET: randomBytes(32).toString('hex'),
    CONVERSATION_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    CONVERSATION_ADMIN_EMAIL: ADMIN_EMAIL,
    CONVERSATION_ADMIN_PASSWORD: ADMIN_PASSWORD,
    CONVERSATION_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_KEY_PREFIX: `conversation-test-${randomBytes(6).toString('hex')}:`,
    EVENTS_OUTBOX_POLL_MS: '100',
    ...(rabbit ? { AMQP_URL: rabbit.url, EVENTS_EXCHANGE: rabbit.exchange, EVENTS_DLX: rabbit.dlx, EVENTS_QUEUE_PREFIX: `${rabbit.prefix}.` } : {}),
    ...env,
  };
  if (rabbit) for (const q of ['conversation-api.recipes', 'conversation-api.sockets']) rabbit.queue(q);
  const apps: RunningService[] = [];
  try {
    // One after the other: the first runs the migrations and creates the first administrator.
    for (let i = 0; i < n; i++) apps.push(await startService(conversationApiService, { env: shared, port: 0, host: '127.0.0.1', logger: false }));
  } catch (err) {
    for (const app of apps) await app.close();
    throw err;
  }
  return {
    apps,
    http: apps.map((a) => request(a.url)),
    rabbit: !!rabbit,
    databaseUrl: db.url,
    schema: db.schema ?? 'conversation',
    async close() {
      for (const app of apps) await app.close();
      await rabbit?.cleanup();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
