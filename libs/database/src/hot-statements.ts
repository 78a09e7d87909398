import { createHash } from 'node:crypto';
import { Client, type ClientConfig, type QueryResult } from 'pg';
import { namesPerConnection } from './prepared-statements';

/** Executions of one text (in the process) before it is named. */
export const HOT_AFTER = 3;
/** Named statements one connection keeps at most; past it, new texts run unnamed there. */
const NAMES_PER_CONNECTION = 100;
/** Distinct texts the process counts, names or refuses at most (a text built with literals in it is a new one each time). */
const MAX_TEXTS = 5000;

/** Statements planned alike for any values: one read or write (not SET, BEGIN, DDL, several statements, …). */
const PLANNABLE = /^\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;
/**
 * `*` in the statement's own select list or RETURNING (`SELECT *`, `t.*`, `RETURNING *`): such a
 * result follows the table's columns, and PostgreSQL refuses to run a prepared statement whose result
 * columns changed ("cached plan must not change result type", after a migration added a column while
 * the process ran). Looked for outside parentheses and quotes only (a star inside a CTE, a subquery
 * or `count(*)` does not make the statement's result); a product there (`a * b`) is taken for one,
 * which only leaves the statement unnamed.
 */
const STAR = /(?:^|[\s,.])\*/;
/** Comments, string literals and quoted names, whichever starts first (an apostrophe in a comment starts no literal). */
const COMMENTS_AND_QUOTES = /--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'|"(?:[^"]|"")*"/g;
const INNERMOST_PARENTHESES = /\([^()]*\)/g;

/** `text` without its comments, quoted parts and what stands in parentheses: the statement's own clauses. */
export function topLevel(text: string): string {
  let out = text.replace(COMMENTS_AND_QUOTES, (part) => (part[0] === "'" ? "''" : part[0] === '"' ? '""' : ' '));
  for (let before = ''; before !== out; ) {
    before = out;
    out = out.replace(INNERMOST_PARENTHESES, ' ');
  }
  return out;
}

/**
 * Which statement texts are hot enough to be named (node-postgres then prepares each once per
 * connection, and PostgreSQL parses and plans it once there instead of on every execution). A text
 * is named from its HOT_AFTER-th execution in the process on, if it is a plain read or write whose
 * result columns cannot change under it; its name is a hash of the text, so every connection names it
 * alike. Bounded: at most MAX_TEXTS texts counted, named and refused.
 */
export class HotStatements {
  private readonly counts = new Map<string, number>();
  private readonly names = new Map<string, string>();
  private readonly refused = new Set<string>();

  constructor(private readonly hotAfter = HOT_AFTER) {}

  /** The name to run `text` under, or null: not hot yet, not plannable alike, or refused. */
  nameOf(text: string): string | null {
    const named = this.names.get(text);
    if (named !== undefined) return named;
    if (this.refused.has(text)) return null;
    const count = (this.counts.get(text) ?? 0) + 1;
    if (count < this.hotAfter) {
      if (this.counts.size >= MAX_TEXTS) this.counts.clear();
      this.counts.set(text, count);
      return null;
    }
    this.counts.delete(text);
    const own = topLevel(text);
    // several statements in one text cannot be prepared (PostgreSQL: "cannot insert multiple commands")
    if (!PLANNABLE.test(text) || STAR.test(own) || /;\s*\S/.test(own)) {
      if (this.refused.size < MAX_TEXTS) this.refused.add(text);
      return null;
    }
    if (this.names.size >= MAX_TEXTS) return null;
    const name = `hot_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, name);
    return name;
  }

  /** Never names `text` again (PostgreSQL refused to run it prepared). */
  refuse(text: string): void {
    this.names.delete(text);
    if (this.refused.size < MAX_TEXTS) this.refused.add(text);
  }
}

/**
 * Errors after which a text is not named again: 0A000, a prepared statement's result type changed
 * under it; 42601, which is also what several statements in one named text get (a syntax error
 * unnamed as well, so nothing is lost by running it unnamed from then on).
 */
const REFUSED_PREPARED = new Set<unknown>(['0A000', '42601']);

type QueryFn = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * node-postgres' Client for the pool (its `Client` option), running the statements `statements`
 * names as named statements: what TypeORM and the repositories send as plain text (`query(text,
 * values)`, in a transaction or not) is then parsed and planned once per connection. Anything else
 * (a query object, a callback, a cursor) goes through unchanged, and so does a text once the
 * connection holds NAMES_PER_CONNECTION names. On connecting it asks the server's version: PGlite
 * (the embedded database, whose connections share one session, where names would collide) gets no
 * names. A named statement PostgreSQL refuses as prepared (REFUSED_PREPARED: a column's type changed
 * under it) fails this once, and its text is never named again.
 *
 * It also runs a connection's statements one at a time: one sent while the connection is busy (a
 * transaction's `Promise.all` of reads, which the repositories cannot know they share one
 * connection for) starts when the one before it has settled, in the order they were sent.
 * node-postgres queues them itself today, but calls that queue are deprecated and pg 9 drops them.
 * A statement sent to an idle connection is written in the same synchronous step, as before
 * (`Database.commitWith` relies on it for its COMMIT).
 */
export function hotStatementsClient(statements: HotStatements): typeof Client {
  return class HotStatementsClient extends Client {
    private readonly prepared = new Set<string>();
    /** Whether this connection names statements: known once connected. */
    private naming = false;

    constructor(config?: string | ClientConfig) {
      super(config);
      const direct = this.query.bind(this) as QueryFn;
      let inFlight = 0;
      let turn: Promise<void> = Promise.resolve();
      const inTurn = (config: unknown, values: unknown): Promise<QueryResult> => {
        const start = () => direct(config, values) as Promise<QueryResult>;
        const result = inFlight === 0 ? start() : turn.then(start);
        inFlight++;
        // Registered before the caller's own reaction: the count is down when the caller goes on.
        const settle = (): void => {
          inFlight--;
        };
        turn = result.then(settle, settle);
        return result;
      };
      // Promise-style statements take their turn; a callback or a submittable (a cursor, a stream) goes as it came.
      const plain: QueryFn = (config, values, callback) =>
        callback !== undefined || typeof values === 'function' || typeof (config as { submit?: unknown } | null)?.submit === 'function' ? direct(config, values, callback) : inTurn(config, values);
      const query: QueryFn = (config, values, callback) => {
        if (!this.naming || typeof config !== 'string' || callback !== undefined || (values !== undefined && !Array.isArray(values))) return plain(config, values, callback);
        const name = statements.nameOf(config);
        if (name === null || (!this.prepared.has(name) && this.prepared.size >= NAMES_PER_CONNECTION)) return plain(config, values);
        this.prepared.add(name);
        return (plain({ name, text: config, values }) as Promise<QueryResult>).catch((err: unknown) => {
          if (REFUSED_PREPARED.has((err as { code?: unknown })?.code)) statements.refuse(config);
          throw err;
        });
      };
      this.query = query as Client['query'];
    }

    override connect(): Promise<Client>;
    override connect(callback: (err: Error | null, client?: Client) => void): void;
    override connect(callback?: (err: Error | null, client?: Client) => void): Promise<Client> | void {
      // node-postgres hands a connection to its pool in the step that reads ReadyForQuery, and the pool
      // listens for its errors from then on; here the pool gets it a step later, after the version.
      // An error read meanwhile (the server ending the session right after starting it) needs a
      // listener, or it would be thrown: it fails the version query instead, and with it the connect.
      const meanwhile = (): void => undefined;
      this.on('error', meanwhile);
      const connected = super
        .connect()
        .then(() =>
          super.query<{ v: string }>('SELECT version() AS v').then(
            ({ rows }) => {
              this.naming = rows[0] !== undefined && namesPerConnection(rows[0].v);
              return this as Client;
            },
            async (err: unknown) => {
              // connected but not answering: not a connection the pool can use
              await this.end().catch(() => undefined);
              throw err;
            },
          ),
        )
        .finally(() => this.removeListener('error', meanwhile));
      if (!callback) return connected;
      connected.then((client) => callback(null, client), callback);
    }
  };
}
