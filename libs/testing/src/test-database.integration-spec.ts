import { Client } from 'pg';
import { createTestDatabase } from './test-database';
import { testServices } from './services';

async function query<T = Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('createTestDatabase', () => {
  it('gives each caller its own throwaway database (embedded: schema) and drops it', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(a.name).toMatch(/^test_[a-z0-9]{12}$/);
    expect(a.name).not.toBe(b.name);
    const qualify = (db: typeof a) => (db.schema ? `${db.schema}.items` : 'items');
    await query(a.url, `CREATE TABLE ${qualify(a)} (id int)`);
    await query(a.url, `INSERT INTO ${qualify(a)} VALUES (1)`);
    await expect(query(b.url, `SELECT * FROM ${qualify(b)}`)).rejects.toThrow(/does not exist/);

    // An open connection does not prevent the drop.
    const open = new Client({ connectionString: a.url });
    await open.connect();
    open.on('error', () => undefined);
    await a.drop();
    await a.drop(); // idempotent
    await open.end().catch(() => undefined);
    await b.drop();

    const admin = testServices().databaseUrl;
    if (testServices().embedded) {
      expect(a.schema).toBe(a.name);
      const left = await query(admin, `SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)`, [[a.name, b.name]]);
      expect(left).toEqual([]);
    } else {
      expect(a.schema).toBeUndefined();
      expect(new URL(a.url).pathname).toBe(`/${a.name}`);
      const left = await query(admin, `SELECT datname FROM pg_database WHERE datname = ANY($1)`, [[a.name, b.name]]);
      expect(left).toEqual([]);
    }
  });
});
