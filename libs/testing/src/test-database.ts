import { Client } from 'pg';
import { testServices, uniqueSuffix } from './services';

export interface TestDatabase {
  /** Connection URL of the throwaway database (embedded: the shared instance). */
  url: string;
  /** Set on the embedded fallback: pass it as DATABASE_SCHEMA, the schema is the throwaway part. */
  schema?: string;
  /** The database (or embedded schema) name, `test_<random>`. */
  name: string;
  /** Drops the database (terminating its connections) or the embedded schema. Idempotent. */
  drop(): Promise<void>;
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A throwaway PostgreSQL database for one test file: on a real server `CREATE DATABASE test_<random>`
 * on the TEST_DATABASE_URL server; on the embedded fallback (a single database) a throwaway schema
 * instead, returned as `schema`, which the caller passes as DATABASE_SCHEMA.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const services = testServices();
  const name = `test_${uniqueSuffix(12)}`;
  let dropped = false;
  if (services.embedded) {
    await withClient(services.databaseUrl, (c) => c.query(`CREATE SCHEMA ${name}`));
    return {
      url: services.databaseUrl,
      schema: name,
      name,
      async drop() {
        if (dropped) return;
        dropped = true;
        await withClient(services.databaseUrl, (c) => c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`));
      },
    };
  }
  await withClient(services.databaseUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(services.databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await withClient(services.databaseUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
