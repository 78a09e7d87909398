/**
 * Run by embedded-concurrency.integration-spec.ts in a child process (PGlite cannot start inside
 * Jest's VM): many pg connections at once against the embedded instance, each with parameterized
 * (extended-protocol) queries and transactions, reporting every wrong or failed answer.
 */
import { connect, type Socket } from 'node:net';
import { Client, Pool } from 'pg';
import { ensureEmbeddedPostgres, stopEmbeddedPostgres } from '../embedded-postgres';
import { serveSession } from '@platform/pglite-server';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  const { url } = await ensureEmbeddedPostgres(dataDir);
  const pool = new Pool({ connectionString: url, max: 8 });
  await pool.query('CREATE TABLE IF NOT EXISTS counters (id int PRIMARY KEY, n int NOT NULL)');
  await pool.query('INSERT INTO counters VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0');

  const wrong: string[] = [];
  const selects = Array.from({ length: 400 }, async (_, i) => {
    try {
      const { rows } = await pool.query('SELECT $1::int AS n, $2::text AS tag', [i, `t${i}`]);
      if (rows[0].n !== i || rows[0].tag !== `t${i}`) wrong.push(`select ${i} answered ${JSON.stringify(rows[0])}`);
    } catch (err) {
      wrong.push(`select ${i} failed: ${(err as Error).message}`);
    }
  });
  const increments = Array.from({ length: 50 }, async (_, i) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query('SELECT n FROM counters WHERE id = $1 FOR UPDATE', [1]);
      await client.query('UPDATE counters SET n = $1 WHERE id = $2', [rows[0].n + 1, 1]);
      await client.query('COMMIT');
    } catch (err) {
      wrong.push(`increment ${i} failed: ${(err as Error).message}`);
      await client.query('ROLLBACK').catch(() => undefined);
    } finally {
      client.release();
    }
  });
  await Promise.all([...selects, ...increments]);
  const { rows } = await pool.query('SELECT n FROM counters WHERE id = $1', [1]);
  // A connection that dies mid-transaction must not leave the session in it.
  const dying = await pool.connect();
  await dying.query('BEGIN');
  await dying.query('UPDATE counters SET n = $1 WHERE id = $2', [-1, 1]);
  dying.release(true);
  await new Promise((r) => setTimeout(r, 100));
  const after = await pool.query('SELECT n FROM counters WHERE id = $1', [1]);
  await pool.end();
  const interleaved = await interleavedUnits(url);
  await stopEmbeddedPostgres();
  const idleInTransaction = await idleInTransactionGuard();
  process.stdout.write(`${JSON.stringify({ wrong, counter: rows[0].n, afterDroppedTransaction: after.rows[0].n, interleaved, idleInTransaction })}\n`);
}

/**
 * The idle-in-transaction guard, on its own in-memory instance with a 300 ms timeout: a connection
 * that opens a transaction and goes quiet is left alone while nobody waits, and terminated (FATAL
 * 25P03, its transaction rolled back, one log line) once others wait behind it, who then get their
 * answers, a new connection included.
 */
async function idleInTransactionGuard() {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create('memory://');
  const logged: string[] = [];
  const server = await serveSession(db, { idleInTransactionTimeoutMs: 300, log: (line) => logged.push(line) });
  const url = `postgres://postgres@${server.host}:${server.port}/postgres`;
  const pool = new Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined); // the terminated client, if it went back to the pool
  try {
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, n int NOT NULL)');
    await pool.query('INSERT INTO items VALUES (1, 0)');

    // Quiet for twice the timeout with nobody waiting: not terminated.
    const patient = await pool.connect();
    await patient.query('BEGIN');
    await patient.query('UPDATE items SET n = $1 WHERE id = $2', [1, 1]);
    await sleep(600);
    await patient.query('COMMIT');
    patient.release();

    // Quiet while others wait: terminated, rolled back, the others answered.
    const forgotten = await pool.connect();
    const forgottenErrors: string[] = [];
    forgotten.on('error', (err: Error & { code?: string }) => forgottenErrors.push(`${err.code ?? ''} ${err.message}`.trim()));
    await forgotten.query('BEGIN');
    await forgotten.query('UPDATE items SET n = $1 WHERE id = $2', [-1, 1]);
    const fresh = new Client({ connectionString: url });
    fresh.on('error', () => undefined);
    const [waited, freshAnswer] = await Promise.all([
      pool.query('SELECT n FROM items WHERE id = $1', [1]),
      fresh.connect().then(() => fresh.query('SELECT n FROM items WHERE id = $1', [1])),
    ]);
    await fresh.end();
    const afterwards = await forgotten.query('SELECT 1').then(
      () => 'answered',
      (err: Error) => `failed: ${err.message}`,
    );
    forgotten.release(true);
    return {
      committedWhileNobodyWaited: (await pool.query('SELECT n FROM items WHERE id = $1', [1])).rows[0].n,
      waitedAnswer: waited.rows[0].n,
      freshAnswer: freshAnswer.rows[0].n,
      forgottenErrors,
      forgottenAfterwards: afterwards,
      logged,
    };
  } finally {
    await pool.end().catch(() => undefined);
    await server.stop();
    await db.close();
  }
}

/**
 * Two raw protocol connections: A sends only the Parse of its unit, B then sends a whole unit, then A
 * the rest of its own. Interleaved message by message, B's Parse would replace A's unnamed statement
 * and A's Bind would run B's query; served unit by unit, each gets its own answer.
 */
async function interleavedUnits(url: string): Promise<{ a: string[]; b: string[] }> {
  const { hostname, port } = new URL(url);
  const a = await RawConnection.open(hostname, Number(port));
  const b = await RawConnection.open(hostname, Number(port));
  a.send(parse("SELECT 'from a'::text"));
  await sleep(100);
  const bDone = b.send(parse("SELECT 'from b'::text"), bind(), execute(), sync()).untilReady();
  await sleep(100);
  const aDone = a.send(bind(), execute(), sync()).untilReady();
  const [aRows, bRows] = await Promise.all([aDone, bDone]);
  a.close();
  b.close();
  return { a: aRows, b: bRows };
}

class RawConnection {
  private buffer = Buffer.alloc(0);
  private waiter?: () => void;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiter?.();
    });
  }

  static async open(host: string, port: number): Promise<RawConnection> {
    const socket = connect(port, host);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const conn = new RawConnection(socket);
    const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + params.length, 0);
    startup.writeInt32BE(196_608, 4);
    socket.write(Buffer.concat([startup, params]));
    await conn.untilReady();
    return conn;
  }

  send(...messages: Buffer[]): this {
    this.socket.write(Buffer.concat(messages));
    return this;
  }

  /** Reads messages until ReadyForQuery; returns the first column of each DataRow. */
  async untilReady(): Promise<string[]> {
    const rows: string[] = [];
    for (;;) {
      while (this.buffer.length >= 5 && this.buffer.length >= 1 + this.buffer.readInt32BE(1)) {
        const type = String.fromCharCode(this.buffer[0]);
        const body = this.buffer.subarray(5, 1 + this.buffer.readInt32BE(1));
        this.buffer = this.buffer.subarray(1 + this.buffer.readInt32BE(1));
        if (type === 'D') rows.push(body.subarray(6, 6 + body.readInt32BE(2)).toString());
        if (type === 'E') rows.push(`error: ${body.toString().replace(/\0/g, ' ').trim()}`);
        if (type === 'Z') return rows;
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  close(): void {
    this.socket.end(message('X', Buffer.alloc(0)));
  }
}

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
const parse = (sql: string) => message('P', Buffer.concat([Buffer.from(`\0${sql}\0`), Buffer.alloc(2)]));
const bind = () => message('B', Buffer.concat([Buffer.from('\0\0'), Buffer.alloc(6)]));
const execute = () => message('E', Buffer.concat([Buffer.from('\0'), Buffer.alloc(4)]));
const sync = () => message('S', Buffer.alloc(0));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
