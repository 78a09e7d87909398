import { Module } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { BaseConfig, type ServiceDefinition } from '@platform/platform';
import { createTestDatabase, type TestDatabase } from '@platform/testing';
import fs from 'node:fs';
import { Client } from 'pg';
import { startBenchService } from './bench-service';

@Module({ imports: [DatabaseModule.forRoot({ entities: [], migrations: [] })] })
class BenchProbeModule {}

const probe: ServiceDefinition = { name: 'bench-probe', port: 0, schema: 'bench_probe', config: BaseConfig, module: () => ({ module: BenchProbeModule }) };

async function schemaExists(url: string, schema: string): Promise<boolean> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
    return rows.length === 1;
  } finally {
    await client.end();
  }
}

describe('startBenchService', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('runs the app on a throwaway schema and data directory, and removes both on close', async () => {
    const bench = await startBenchService(probe, {}, db.url);
    const dataDir = bench.service.config.DATA_DIR;
    try {
      expect(bench.schema).toMatch(/^bench_[0-9a-f]{8}$/);
      expect(bench.service.config.DATABASE_SCHEMA).toBe(bench.schema);
      expect(fs.existsSync(dataDir)).toBe(true);
      expect(await (await fetch(`${bench.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect((await fetch(`${bench.url}/readyz`)).status).toBe(200);
      expect(await schemaExists(db.url, bench.schema)).toBe(true);
    } finally {
      await bench.close();
    }
    expect(await schemaExists(db.url, bench.schema)).toBe(false);
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
