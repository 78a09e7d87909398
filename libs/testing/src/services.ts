/**
 * What the Jest global setup (libs/testing/jest/global-setup.cjs) found, as the workers see it.
 * Outside Jest (no global setup) the standard local defaults are assumed.
 */
export interface TestServices {
  /** Server to create throwaway databases (or, embedded, schemas) on. */
  databaseUrl: string;
  /** RabbitMQ when reachable; unset means tests use the in-process event bus. */
  amqpUrl?: string;
  /** Redis when reachable; unset means in-memory counters and queues. */
  redisUrl?: string;
  /** True when PostgreSQL is the embedded PGlite of the global setup (one database only). */
  embedded: boolean;
}

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const STATE_VAR = 'PLATFORM_TEST_SERVICES';

export function testServices(): TestServices {
  const raw = process.env[STATE_VAR];
  if (raw) {
    const state = JSON.parse(raw) as TestServices;
    return { databaseUrl: state.databaseUrl, amqpUrl: state.amqpUrl, redisUrl: state.redisUrl, embedded: state.embedded === true };
  }
  return {
    databaseUrl: process.env.TEST_DATABASE_URL || DEFAULT_TEST_DATABASE_URL,
    amqpUrl: process.env.TEST_AMQP_URL || undefined,
    redisUrl: process.env.TEST_REDIS_URL || undefined,
    embedded: process.env.TEST_EMBEDDED === '1',
  };
}

/** A short random lower-case suffix for names of throwaway resources. */
export function uniqueSuffix(length = 10): string {
  let out = '';
  while (out.length < length) out += Math.random().toString(36).slice(2);
  return out.slice(0, length);
}
