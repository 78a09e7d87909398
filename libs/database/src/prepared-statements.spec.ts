import type { DataSource } from 'typeorm';
import { PreparedStatements } from './prepared-statements';

/** A DataSource whose pool records the query configs it gets; `version()` answers `version`. */
function fakeDataSource(version: () => Promise<string>) {
  const configs: Array<{ name?: string; text: string; values: unknown[] }> = [];
  const ds = {
    driver: { master: { query: async (config: { name?: string; text: string; values: unknown[] }) => (configs.push(config), { rows: [{ n: configs.length }] }) } },
    query: async () => [{ v: await version() }],
  };
  return { statements: new PreparedStatements(ds as unknown as DataSource), configs };
}

describe('PreparedStatements', () => {
  it('names the statement on PostgreSQL, so each pooled connection plans it once', async () => {
    const { statements, configs } = fakeDataSource(async () => 'PostgreSQL 15.4 on x86_64-pc-linux-gnu');
    expect(await statements.query('q', 'SELECT $1', [1])).toEqual([{ n: 1 }]);
    await statements.query('q', 'SELECT $1', [2]);
    expect(configs).toEqual([
      { name: 'q', text: 'SELECT $1', values: [1] },
      { name: 'q', text: 'SELECT $1', values: [2] },
    ]);
  });

  it('leaves it unnamed on PGlite, where every connection shares one session', async () => {
    const { statements, configs } = fakeDataSource(async () => 'PostgreSQL 16.4 (PGlite 0.2.0) on x86_64-pc-linux-gnu');
    await statements.query('q', 'SELECT 1', []);
    expect(configs).toEqual([{ text: 'SELECT 1', values: [] }]);
  });

  it('asks for the version again after the database failed to answer', async () => {
    let calls = 0;
    const { statements, configs } = fakeDataSource(async () => {
      calls += 1;
      if (calls === 1) throw new Error('connection refused');
      return 'PostgreSQL 15.4';
    });
    await expect(statements.query('q', 'SELECT 1', [])).rejects.toThrow('connection refused');
    await statements.query('q', 'SELECT 1', []);
    expect(calls).toBe(2);
    expect(configs).toEqual([{ name: 'q', text: 'SELECT 1', values: [] }]);
  });
});
