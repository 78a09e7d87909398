import { Logger } from '@nestjs/common';
import { execFileSync } from 'node:child_process';
import { createTestDatabase, type TestDatabase } from '@platform/testing';
import { DataSource } from 'typeorm';
import { Note, noteMigrations } from './__fixtures__/notes';
import { buildDataSourceOptions } from './data-source-options';
import { Database } from './database';
import { runMigrations } from './migrations';
import { ensureSchema } from './schema';

Logger.overrideLogger(['error', 'warn']);

/** A repository as apps write them: it only knows the Database, never a transaction. */
class NotesRepository {
  constructor(private readonly db: Database) {}

  async insertSql(body: string): Promise<string> {
    const row = await this.db.one<{ id: string }>(`INSERT INTO ${this.db.table('notes')} (body) VALUES ($1) RETURNING id`, [body]);
    return row!.id;
  }

  async insertEntity(body: string): Promise<void> {
    await this.db.repository(Note).insert({ body });
  }

  bodies(): Promise<string[]> {
    return this.db.rows<{ body: string }>(`SELECT body FROM ${this.db.table('notes')} ORDER BY body`).then((r) => r.map((x) => x.body));
  }
}

describe('Database (real PostgreSQL)', () => {
  let testDb: TestDatabase;
  const sources: DataSource[] = [];

  async function open(schema: string): Promise<Database> {
    const ds = new DataSource(
      buildDataSourceOptions({ url: testDb.url, schema, applicationName: schema, entities: [Note], migrations: noteMigrations }),
    );
    await ds.initialize();
    sources.push(ds);
    await ensureSchema(ds, schema);
    await runMigrations(ds);
    return new Database(ds);
  }

  let db: Database;
  let other: Database;
  let notes: NotesRepository;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const schema = testDb.schema ?? 'dbtest';
    db = await open(schema);
    other = await open(`${schema}_other`);
    notes = new NotesRepository(db);
  });

  afterAll(async () => {
    for (const ds of sources) await ds.destroy();
    await testDb.drop();
  });

  beforeEach(async () => {
    await db.affected(`DELETE FROM ${db.table('notes')}`);
    await other.affected(`DELETE FROM ${other.table('notes')}`);
  });

  it('commits the writes of several repository calls in one transaction, SQL and entity alike', async () => {
    await db.transaction(async () => {
      expect(db.inTransaction).toBe(true);
      await notes.insertSql('a');
      await notes.insertEntity('b');
    });
    expect(db.inTransaction).toBe(false);
    expect(await notes.bodies()).toEqual(['a', 'b']);
  });

  it('rolls back every write of the transaction when it throws, and rethrows', async () => {
    await expect(
      db.transaction(async () => {
        await notes.insertSql('a');
        await notes.insertEntity('b');
        throw new Error('business rule');
      }),
    ).rejects.toThrow('business rule');
    expect(await notes.bodies()).toEqual([]);
  });

  it('joins an open transaction: an inner failure rolls back the outer writes too', async () => {
    await expect(
      db.transaction(async () => {
        await notes.insertSql('outer');
        await db.transaction(async () => {
          await notes.insertSql('inner');
          throw new Error('inner failed');
        });
      }),
    ).rejects.toThrow('inner failed');
    expect(await notes.bodies()).toEqual([]);
  });

  it('sees its own uncommitted writes inside the transaction, which others do not see', async () => {
    await db.transaction(async () => {
      await notes.insertSql('pending');
      expect(await notes.bodies()).toEqual(['pending']);
      const outside = await db.dataSource.query(`SELECT count(*)::int AS n FROM ${db.table('notes')}`);
      expect(outside[0].n).toBe(0);
    });
  });

  it('newTransaction commits on its own even when the surrounding one rolls back', async () => {
    await expect(
      db.transaction(async () => {
        await notes.insertSql('rolled back');
        await db.newTransaction(() => notes.insertSql('kept'));
        throw new Error('outer failed');
      }),
    ).rejects.toThrow('outer failed');
    expect(await notes.bodies()).toEqual(['kept']);
  });

  it("never puts another service's queries in its transaction, even in the same async context", async () => {
    await expect(
      db.transaction(async () => {
        await notes.insertSql('mine');
        expect(other.inTransaction).toBe(false);
        await other.one(`INSERT INTO ${other.table('notes')} (body) VALUES ('theirs') RETURNING id`);
        throw new Error('mine failed');
      }),
    ).rejects.toThrow('mine failed');
    expect(await notes.bodies()).toEqual([]);
    expect(await other.rows(`SELECT body FROM ${other.table('notes')}`)).toEqual([{ body: 'theirs' }]);
  });

  it('reads the rows of UPDATE … RETURNING and the count of a plain UPDATE', async () => {
    await notes.insertSql('x');
    await notes.insertSql('y');
    const updated = await db.rows<{ body: string }>(`UPDATE ${db.table('notes')} SET body = body || '!' RETURNING body`);
    expect(updated.map((r) => r.body).sort()).toEqual(['x!', 'y!']);
    expect(await db.affected(`UPDATE ${db.table('notes')} SET meta = '{"seen":true}'`)).toBe(2);
    expect(await db.one(`SELECT body FROM ${db.table('notes')} WHERE body = 'none'`)).toBeNull();
  });

  it('runs a prepared statement on its own, and refuses one inside a transaction (it could not join it)', async () => {
    await db.prepared('insert_note', `INSERT INTO ${db.table('notes')} (body) VALUES ($1)`, ['prepared']);
    await expect(
      db.transaction(() => db.prepared('insert_note', `INSERT INTO ${db.table('notes')} (body) VALUES ($1)`, ['inside'])),
    ).rejects.toThrow('inside a transaction');
    expect(await notes.bodies()).toEqual(['prepared']);
  });
  it('commitWith writes the COMMIT before atCommit runs: another session sees the row while atCommit still runs', async () => {
    const seenFromOutside: string[] = [];
    // Polls from another process while this one is blocked in atCommit: only a COMMIT already on the wire can land meanwhile.
    const probe = `
      const { Client } = require('pg');
      (async () => {
        const c = new Client({ connectionString: process.argv[1] });
        await c.connect();
        for (let i = 0; i < 200; i++) {
          const r = await c.query("SELECT body FROM ${db.table('notes')} WHERE body = 'at commit'");
          if (r.rows.length) { process.stdout.write('seen'); break; }
          await new Promise((res) => setTimeout(res, 50));
        }
        await c.end();
      })();`;
    const changed = await db.commitWith(`INSERT INTO ${db.table('notes')} (body) VALUES ($1)`, ['at commit'], () => {
      seenFromOutside.push(execFileSync(process.execPath, ['-e', probe, testDb.url], { cwd: __dirname, encoding: 'utf8' }));
    });
    expect(changed).toBe(1);
    expect(seenFromOutside).toEqual(['seen']);
    expect(await notes.bodies()).toEqual(['at commit']);
  });

  it('commitWith rolls back a failing statement without calling atCommit, and is refused inside a transaction', async () => {
    const calls: string[] = [];
    await expect(db.commitWith(`INSERT INTO ${db.table('notes')} (body) VALUES ($1), (NULL)`, ['first'], () => calls.push('atCommit'))).rejects.toMatchObject({ code: '23502' });
    expect(calls).toEqual([]);
    expect(await notes.bodies()).toEqual([]);
    await expect(db.transaction(() => db.commitWith(`DELETE FROM ${db.table('notes')}`, [], () => calls.push('inside')))).rejects.toThrow('inside a transaction');
    expect(calls).toEqual([]);
    // the pooled connection went back clean: the next commit works
    expect(await db.commitWith(`INSERT INTO ${db.table('notes')} (body) VALUES ($1)`, ['after'], () => calls.push('after'))).toBe(1);
    expect(calls).toEqual(['after']);
  });

  it('lock(key) serialises the transactions that take the same key, and is refused outside one', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const firstHasLock = new Promise<void>((r) => (locked = r));
    const first = db.transaction(async () => {
      await db.lock('counter');
      locked();
      await held;
      order.push('first done');
    });
    await firstHasLock;
    const second = db.transaction(async () => {
      await db.lock('counter');
      order.push('second has the lock');
    });
    const other = db.transaction(async () => {
      await db.lock('another key');
      order.push('another key');
    });
    await other;
    expect(order).toEqual(['another key']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['another key', 'first done', 'second has the lock']);
    await expect(db.lock('counter')).rejects.toThrow('outside a transaction');
  });

  it('lockAll(keys) takes the locks of lock(key), sets in one order: overlapping sets wait instead of deadlocking', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const firstHasLocks = new Promise<void>((r) => (locked = r));
    const first = db.transaction(async () => {
      await db.lockAll(['a', 'b', 'c']);
      locked();
      await held;
      order.push('first done');
    });
    await firstHasLocks;
    // the same set given in the other order, and one key of it through lock(key): both wait
    const reversed = db.transaction(async () => {
      await db.lockAll(['c', 'b', 'a', 'c']);
      order.push('reversed set');
    });
    const single = db.transaction(async () => {
      await db.lock('b');
      order.push('single key');
    });
    const apart = db.transaction(async () => {
      await db.lockAll(['d', 'e']);
      order.push('other keys');
    });
    await apart;
    expect(order).toEqual(['other keys']);
    release();
    await Promise.all([first, reversed, single]);
    expect(order.slice(0, 2)).toEqual(['other keys', 'first done']);
    expect(order.slice(2).sort()).toEqual(['reversed set', 'single key']);
    await db.transaction(() => db.lockAll([]));
    await expect(db.lockAll(['a'])).rejects.toThrow('outside a transaction');
  });
});
