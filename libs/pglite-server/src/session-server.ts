import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketHandler } from '@electric-sql/pglite-socket';

/**
 * Serves one PGlite session to many `pg` connections, one protocol *unit* at a time.
 *
 * PGlite is a single backend session. pglite-socket's own queue hands it the frontend messages of
 * all connections one message at a time and only keeps a connection's messages together inside a
 * transaction. Outside one, node-postgres' extended-protocol sequence of one query (Parse, Bind,
 * Describe, Execute, Sync) interleaves with another connection's: the second Parse replaces the
 * unnamed statement of the first, whose Bind then fails ("unnamed prepared statement does not exist")
 * or, worse, runs the other connection's statement. This queue gives the session to one connection
 * from the first message of a unit until the unit ends — a Sync or a simple Query — and, while a
 * transaction is open, until it ends. Other connections' messages wait in arrival order.
 *
 * Like PostgreSQL's `idle_in_transaction_session_timeout`, a connection that holds the session in an
 * open transaction and sends nothing for `idleInTransactionTimeoutMs` while other connections wait is
 * terminated (`onIdleInTransaction`): here one forgotten transaction would otherwise stall every
 * other connection, new ones included, for good. Its transaction is then rolled back.
 *
 * Not handled: COPY … FROM STDIN (its CopyData follows a simple Query); no service uses it.
 */
export class SessionQueue {
  private readonly queue: Pending[] = [];
  private processing = false;
  /** The connection that holds the session (mid-unit or in a transaction), or null. */
  private owner: number | null = null;
  private ownerMidUnit = false;
  /** Since when the owner has held the session in a transaction without a message being served; null while it is busy. */
  private idleSince: number | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly idleTimeoutMs: number;

  constructor(
    private readonly db: PGlite,
    private readonly opts: SessionQueueOptions = {},
  ) {
    this.idleTimeoutMs = opts.idleInTransactionTimeoutMs ?? DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS;
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  /** Stops the idle-in-transaction timer (the server is stopping). */
  dispose(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  /** A connection went away: drop its queued messages and, if it held the session mid-unit, end the unit. */
  clearQueueForHandler(handlerId: number): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i].handlerId !== handlerId) continue;
      this.queue.splice(i, 1)[0].reject(new Error('connection closed'));
    }
  }

  /** Called after clearQueueForHandler when a connection detaches: frees the session it held. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    // A unit cut short leaves the backend skipping messages until a Sync. (`exec` takes PGlite's
    // lock itself; the raw protocol call needs it taken.)
    if (this.ownerMidUnit) await this.db.runExclusive(() => this.db.execProtocolRaw(SYNC_MESSAGE));
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = null;
    this.ownerMidUnit = false;
    this.idleSince = null;
    void this.process();
  }

  private next(): Pending | undefined {
    if (this.owner === null) return this.queue.shift();
    const index = this.queue.findIndex((p) => p.handlerId === this.owner);
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let item = this.next(); item; item = this.next()) {
        this.idleSince = null;
        let bytes = 0;
        let failure: unknown;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item!.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                item!.onData(data);
              },
            }),
          );
        } catch (err) {
          failure = err;
        }
        const unitEnded = endsUnit(item.message);
        const holds = !unitEnded || this.db.isInTransaction();
        this.owner = holds ? item.handlerId : null;
        this.ownerMidUnit = !unitEnded;
        if (holds && unitEnded) this.idleSince = Date.now();
        if (failure === undefined) item.resolve(bytes);
        else item.reject(failure);
      }
    } finally {
      this.processing = false;
      this.watchIdleOwner();
    }
  }

  /** Others' messages waiting behind an owner idle in its transaction: terminate it once the timeout has passed. */
  private watchIdleOwner(): void {
    const owner = this.owner;
    const since = this.idleSince;
    const waiting = owner === null ? 0 : this.queue.filter((p) => p.handlerId !== owner).length;
    if (this.idleTimeoutMs <= 0 || owner === null || since === null || waiting === 0 || this.processing) {
      this.dispose();
      return;
    }
    const remaining = since + this.idleTimeoutMs - Date.now();
    if (remaining > 0) {
      if (!this.idleTimer) {
        this.idleTimer = setTimeout(() => {
          this.idleTimer = undefined;
          this.watchIdleOwner();
        }, remaining);
        this.idleTimer.unref();
      }
      return;
    }
    this.dispose();
    this.idleSince = null; // terminated once; the rollback frees the session
    this.opts.onIdleInTransaction?.(owner, { idleMs: Date.now() - since, waiting });
  }
}

export interface SessionQueueOptions {
  /**
   * Terminate a connection that holds the session in an open transaction and sends nothing for this
   * long while other connections wait (0 = never). Default 10 s.
   */
  idleInTransactionTimeoutMs?: number;
  /** Terminates the connection (its transaction is rolled back when it detaches). */
  onIdleInTransaction?: (handlerId: number, info: { idleMs: number; waiting: number }) => void;
}

/** The embedded database's `idle_in_transaction_session_timeout` (see SessionQueue). */
export const DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

interface Pending {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (err: unknown) => void;
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'
const PROTOCOL_3 = 196_608;
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4]);

/** True for messages after which the session is free again (unless a transaction is open). */
export function endsUnit(message: Uint8Array): boolean {
  const type = message[0];
  if (type === SYNC || type === QUERY || type === TERMINATE) return true;
  // The startup message has no type byte: Int32 length, then Int32 protocol version.
  if (message.length >= 8) {
    const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
    if (view.getInt32(0) === message.length && view.getInt32(4) === PROTOCOL_3) return true;
  }
  return false;
}

export interface SessionServer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export interface ServeSessionOptions {
  host?: string;
  /** 0 (default) = a free port. */
  port?: number;
  maxConnections?: number;
  /** See SessionQueueOptions; default DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS (10 s), 0 = never. */
  idleInTransactionTimeoutMs?: number;
  /** Where the one line about a terminated connection goes (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Listens on `host:port` and serves `db` to up to `maxConnections` connections through pglite-socket's
 * protocol handler and the SessionQueue above. A connection idle in a transaction past the timeout
 * while others wait gets PostgreSQL's FATAL 25P03 and is closed; its transaction is rolled back.
 */
export async function serveSession(db: PGlite, opts: ServeSessionOptions = {}): Promise<SessionServer> {
  const { PGLiteSocketHandler } = await import('@electric-sql/pglite-socket');
  const host = opts.host ?? '127.0.0.1';
  const maxConnections = opts.maxConnections ?? 100;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  await db.waitReady;
  const handlers = new Set<PGLiteSocketHandler>();
  const sockets = new Map<number, { handler: PGLiteSocketHandler; socket: Socket }>();
  const queue = new SessionQueue(db, {
    idleInTransactionTimeoutMs: opts.idleInTransactionTimeoutMs,
    onIdleInTransaction(handlerId, { idleMs, waiting }) {
      const conn = sockets.get(handlerId);
      if (!conn) return;
      log(
        `[embedded-postgres] terminating connection ${handlerId}: idle in transaction for ${idleMs} ms while ${waiting} message(s) of other connections waited (idle_in_transaction_session_timeout); rolling back`,
      );
      sockets.delete(handlerId);
      handlers.delete(conn.handler);
      // As PostgreSQL does: FATAL, then close. Nothing more is read from it; detach() drops its queued
      // messages and rolls back.
      conn.socket.removeAllListeners('data');
      conn.socket.pause();
      if (conn.socket.writable) conn.socket.end(IDLE_IN_TRANSACTION_FATAL);
      void conn.handler
        .detach(false)
        .catch(() => undefined)
        .finally(() => {
          conn.socket.on('error', () => undefined); // detach() removed the handler's; a reset must not throw here
          conn.socket.destroySoon();
        });
    },
  });
  const server: Server = createServer((socket) => {
    if (handlers.size >= maxConnections) {
      socket.end('Too many connections\n');
      return;
    }
    // The handler only calls enqueue / clearQueueForHandler / clearTransactionIfNeeded / getQueueLength;
    // its option type names pglite-socket's own queue class, hence the cast.
    const handler = new PGLiteSocketHandler({ queryQueue: queue as unknown as HandlerOptions['queryQueue'], closeOnDetach: true });
    handlers.add(handler);
    sockets.set(handler.handlerId, { handler, socket });
    const forget = () => {
      handlers.delete(handler);
      sockets.delete(handler.handlerId);
    };
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    handler.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('embedded PostgreSQL: the server has no TCP address');
  return {
    host,
    port: address.port,
    async stop() {
      queue.dispose();
      await Promise.all([...handlers].map((h) => h.detach(true).catch(() => undefined)));
      handlers.clear();
      sockets.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type HandlerOptions = ConstructorParameters<typeof PGLiteSocketHandler>[0];

/** ErrorResponse FATAL 25P03, what PostgreSQL sends before closing such a connection. */
const IDLE_IN_TRANSACTION_FATAL = errorResponse('FATAL', '25P03', 'terminating connection due to idle-in-transaction timeout');

function errorResponse(severity: string, code: string, text: string): Buffer {
  const body = Buffer.from(`S${severity}\0V${severity}\0C${code}\0M${text}\0\0`);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
