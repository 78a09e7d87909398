import { startService, type RunningService, type ServiceDefinition } from '@platform/platform';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/** Drops a bench's throwaway schema on a connection of its own, once the app using it has closed. */
export async function dropBenchSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** An app started for a bench suite on a throwaway schema and data directory; `close()` removes both. */
export interface BenchService {
  service: RunningService;
  url: string;
  schema: string;
  close(): Promise<void>;
}

/**
 * Starts `def` in this process (silent, migrations applied) on a schema and DATA_DIR of its own:
 * DATABASE_URL when given (or set), the embedded database otherwise. `close()` stops the app first
 * (its workers poll the schema), then drops the schema on a connection of its own and the directory.
 */
export async function startBenchService(def: ServiceDefinition<any>, env: Record<string, string>, databaseUrl = process.env.DATABASE_URL): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), `${def.name}-bench-`));
  const schema = `bench_${randomUUID().slice(0, 8)}`;
  const service = await startService(def, {
    port: 0,
    logger: false,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      DB_MIGRATE_ON_START: 'true',
      DATABASE_SCHEMA: schema,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
  });
  return {
    service,
    url: service.url,
    schema,
    close: async () => {
      await service.close();
      if (databaseUrl) await dropBenchSchema(databaseUrl, schema);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
