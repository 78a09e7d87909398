import type { DataSource } from 'typeorm';
import { Db } from './db';

/** A DataSource whose pool records the query configs it gets; `version()` answers `version`. */
function fakeDataSource(version: () => Promise<string>) {
  const configs: Array<{ name?: string; text: string; values: unknown[] }> = [];
  const ds = {
    options: { schema: 'email_t' },
    driver: { master: { query: async (config: { name?: string; text: string; values: unknown[] }) => (configs.push(config), { rows: [{ n: configs.length }] }) } },
    query: async () => [{ v: await version() }],
  };
  return { db: new Db(ds as unknown as DataSource), configs };
}

// The named/unnamed logic itself is PreparedStatements' (tested in @platform/database).
describe('Db.prepared', () => {
  it('names the statement per schema on PostgreSQL, so each pooled connection plans it once', async () => {
    const { db, configs } = fakeDataSource(async () => 'PostgreSQL 15.4 on x86_64-pc-linux-gnu');
    expect(await db.prepared('q', 'SELECT $1', [1])).toEqual([{ n: 1 }]);
    await db.prepared('q', 'SELECT $1', [2]);
    expect(configs).toEqual([
      { name: 'q_email_t', text: 'SELECT $1', values: [1] },
      { name: 'q_email_t', text: 'SELECT $1', values: [2] },
    ]);
  });
});
