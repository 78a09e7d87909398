import { Logger } from '@nestjs/common';
import { createServer, type AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@platform/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { buildDataSourceOptions, DEFAULT_POOL } from './data-source-options';
import { HOT_AFTER, HotStatements, hotStatementsClient } from './hot-statements';
import { ensureSchema } from './schema';

Logger.overrideLogger(['error', 'warn']);

/**
 * Hot statements on a PostgreSQL server (HotStatements, the pool's Client): one pooled connection,
 * so that `pg_prepared_statements` (per session) shows what that connection prepared.
 */
describe('hot statements (real PostgreSQL)', () => {
  let testDb: TestDatabase;
  let ds: DataSource;
  let schema: string;
  let embedded = false;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    schema = testDb.schema ?? 'hot';
    ds = new DataSource(buildDataSourceOptions({ url: testDb.url, schema, applicationName: 'hot-statements', entities: [], migrations: [], pool: { ...DEFAULT_POOL, max: 1 } }));
    await ds.initialize();
    await ensureSchema(ds, schema);
    const [{ v }] = (await ds.query('SELECT version() AS v')) as Array<{ v: string }>;
    embedded = /PGlite/i.test(v);
    await ds.query(`CREATE TABLE ${schema}.items (id int PRIMARY KEY, label text NOT NULL)`);
    await ds.query(`INSERT INTO ${schema}.items SELECT g, 'item ' || g FROM generate_series(1, 5) g`);
  });

  afterAll(async () => {
    await ds?.destroy();
    await testDb?.drop();
  });

  const preparedOnTheConnection = async (text: string): Promise<string[]> =>
    ((await ds.query('SELECT name FROM pg_prepared_statements WHERE statement = $1', [text])) as Array<{ name: string }>).map((r) => r.name);

  it('prepares a statement run again and again once on the connection, and answers each run with its own values', async () => {
    const text = `SELECT label FROM ${schema}.items WHERE id = $1`;
    const labels: string[] = [];
    for (let id = 1; id <= HOT_AFTER + 2; id++) labels.push(((await ds.query(text, [id])) as Array<{ label: string }>)[0].label);
    expect(labels).toEqual(['item 1', 'item 2', 'item 3', 'item 4', 'item 5']);
    // the embedded database (one shared session) names nothing
    expect(await preparedOnTheConnection(text)).toEqual(embedded ? [] : [expect.stringMatching(/^hot_[0-9a-f]{24}$/)]);
  });

  it('runs named statements inside a transaction, which rolls them back as any other', async () => {
    const text = `UPDATE ${schema}.items SET label = $2 WHERE id = $1`;
    await expect(
      ds.transaction(async (manager) => {
        for (let i = 0; i < HOT_AFTER + 1; i++) await manager.query(text, [1, `renamed ${i}`]);
        const [{ label }] = (await manager.query(`SELECT label FROM ${schema}.items WHERE id = 1`)) as Array<{ label: string }>;
        expect(label).toBe(`renamed ${HOT_AFTER}`);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(((await ds.query(`SELECT label FROM ${schema}.items WHERE id = 1`)) as Array<{ label: string }>)[0].label).toBe('item 1');
    expect(await preparedOnTheConnection(text)).toHaveLength(embedded ? 0 : 1);
  });

  it('runs statements sent at once on one connection one after the other, in order: node-postgres never gets a second while one runs', async () => {
    // What node-postgres' Client is handed, per connection: with a statement still running, it would
    // queue the next itself (deprecated, gone in pg 9).
    const pgQuery = Client.prototype.query;
    const running = new Map<Client, number>();
    let most = 0;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const out = (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
      if (out instanceof Promise) {
        running.set(this, (running.get(this) ?? 0) + 1);
        most = Math.max(most, running.get(this)!);
        const done = (): void => void running.set(this, running.get(this)! - 1);
        out.then(done, done);
      }
      return out as ReturnType<Client['query']>;
    });
    const own = new DataSource(buildDataSourceOptions({ url: testDb.url, schema, applicationName: 'hot-statements-turns', entities: [], migrations: [], pool: { ...DEFAULT_POOL, max: 1 } }));
    try {
      await own.initialize();
      const text = `SELECT label FROM ${schema}.items WHERE id = $1`;
      const order: number[] = [];
      // a transaction's Promise.all: five reads at once on its one connection
      const labels = await own.transaction((manager) =>
        Promise.all(
          [5, 4, 3, 2, 1].map(async (id) => {
            const [{ label }] = (await manager.query(text, [id])) as Array<{ label: string }>;
            order.push(id);
            return label;
          }),
        ),
      );
      expect(labels).toEqual(['item 5', 'item 4', 'item 3', 'item 2', 'item 1']);
      expect(order).toEqual([5, 4, 3, 2, 1]);
      // one that fails among them rejects with its own error; the transaction is then aborted, as on any connection
      const results = await own.transaction((manager) =>
        Promise.allSettled([manager.query(text, [1]), manager.query(`SELECT 1 / $1::int AS q`, [0]), manager.query(text, [2])]),
      );
      expect(results.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : r.status))).toEqual(['fulfilled', '22012', '25P02']);
      expect(most).toBe(1);
    } finally {
      spy.mockRestore();
      await own.destroy();
    }
  });

  it('answers the error of a failing run of a named statement, and runs it again after', async () => {
    const text = `SELECT 10 / $1::int AS q`;
    for (let i = 0; i < HOT_AFTER; i++) await ds.query(text, [5]);
    await expect(ds.query(text, [0])).rejects.toMatchObject({ code: '22012' });
    expect(await ds.query(text, [2])).toEqual([{ q: 5 }]);
  });

  it('never names a star select, whose result follows the table: a column added under it changes nothing', async () => {
    const text = `SELECT * FROM ${schema}.items WHERE id = $1`;
    for (let i = 0; i < HOT_AFTER + 1; i++) await ds.query(text, [2]);
    expect(await preparedOnTheConnection(text)).toEqual([]);
    await ds.query(`ALTER TABLE ${schema}.items ADD COLUMN note text`);
    expect(await ds.query(text, [2])).toEqual([{ id: 2, label: 'item 2', note: null }]);
  });

  it('fails a named statement once when a column it returns changed type under it, then runs it unnamed', async () => {
    if (embedded) return;
    await ds.query(`CREATE TABLE ${schema}.counters (id int PRIMARY KEY, n int NOT NULL)`);
    await ds.query(`INSERT INTO ${schema}.counters VALUES (1, 7)`);
    const text = `SELECT n FROM ${schema}.counters WHERE id = $1`;
    for (let i = 0; i < HOT_AFTER + 1; i++) expect(await ds.query(text, [1])).toEqual([{ n: 7 }]);
    await ds.query(`ALTER TABLE ${schema}.counters ALTER COLUMN n TYPE text`);
    await expect(ds.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
    expect(await ds.query(text, [1])).toEqual([{ n: '7' }]);
  });
});

/** A backend message: its type byte, then its length (itself included) and body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

describe('hot statements client, connecting', () => {
  it('fails the connect, not the process, when the server ends the session in the same read that started it', async () => {
    // A server that accepts the session and ends it at once (as DROP DATABASE … WITH (FORCE) does to a
    // session just started): AuthenticationOk, ReadyForQuery and a FATAL ErrorResponse in one write.
    const fatal = Buffer.concat([
      ...[['S', 'FATAL'], ['V', 'FATAL'], ['C', '57P01'], ['M', 'terminating connection due to administrator command']].map(([k, v]) => Buffer.from(`${k}${v}\0`, 'latin1')),
      Buffer.from([0]),
    ]);
    const authOk = Buffer.alloc(4);
    const server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end(Buffer.concat([message('R', authOk), message('Z', Buffer.from('I')), message('E', fatal)])));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const HotClient = hotStatementsClient(new HotStatements());
      const client = new HotClient({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, user: 'u', database: 'd' });
      await expect(client.connect()).rejects.toThrow();
      const viaCallback = new HotClient({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, user: 'u', database: 'd' });
      await expect(new Promise((resolve, reject) => viaCallback.connect((err: Error | null) => (err ? reject(err) : resolve(undefined))))).rejects.toThrow();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
