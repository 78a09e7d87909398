/**
 * The authorization matrix: for every operation of an app's own OpenAPI document, the same request
 * sent with no credential, a wrong one, another tenant's and a lesser role's, each answered with the
 * documented status and none of them showing the owner's data. The rows are keyed by the operation
 * ('GET /api/v1/things/{id}'), so a route added without a row (or a row left after its route went)
 * fails the suite, naming it.
 */

export type Caller = 'none' | 'wrong' | 'otherTenant' | 'lesserRole';

export const CALLERS: readonly Caller[] = ['none', 'wrong', 'otherTenant', 'lesserRole'];

export interface MatrixRequest {
  /** the concrete path (ids of the owner's records filled in), query string included if any */
  path: string;
  /** a JSON body for routes that take one (a valid body: the check is about who may, not what) */
  body?: unknown;
  /** extra headers (content type for a non-JSON body, etc.) */
  headers?: Record<string, string>;
  /** a raw body (multipart, text) instead of `body` */
  rawBody?: Buffer | string;
}

export interface MatrixRow<Ctx> {
  request: (ctx: Ctx) => MatrixRequest;
  /** the documented status for each kind of caller; a caller left out does not apply to the route
   *  (say why in `note`); a public route says so with `public: true` and lists what it still checks */
  expect: Partial<Record<Caller, number>>;
  public?: boolean;
  note?: string;
  /** the status the owner gets (sent last, with `MatrixSetup.owner`): proves the request itself is right */
  owner?: number;
  /** callers allowed to see the owner's data in their answer (a lesser role of the same tenant reading) */
  seesOwnerData?: Caller[];
  /** this row's own headers for some callers (or the owner), instead of the setup's: e.g. the realm a route belongs to */
  callers?: (ctx: Ctx) => Partial<Record<Exclude<Caller, 'none'> | 'owner', Record<string, string>>>;
}

export interface MatrixSetup<Ctx> {
  /** base URL of the running app (or gateway) */
  baseUrl: string;
  /** the operations of the app's own OpenAPI document, as 'GET /api/v1/things/{id}' (see operationsOf) */
  operations: string[];
  /** headers that present each kind of caller ('none' sends no credential) */
  callers: Record<Exclude<Caller, 'none'>, Record<string, string>>;
  /** strings that only the owner's data contains (ids, emails, names): never in another caller's answer */
  secrets: string[];
  ctx: Ctx;
  close(): Promise<void>;
  /** headers that present the owner, for rows that set `owner` */
  owner?: Record<string, string>;
  /** strings a given caller must never see, whatever the row (checked even where `seesOwnerData` lets it read the owner's data) */
  secretsFor?: Partial<Record<Caller, string[]>>;
  /** the app's OpenAPI document: when given, every status a row expects must be among its operation's documented responses */
  document?: OpenApiDocument;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** 'GET /a/{id}' for every path and method of an OpenAPI document (fetched from `${baseUrl}<docsJsonPath>`) */
export function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(document.paths ?? {})
    .flatMap(([path, item]) => Object.keys(item ?? {}).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();
}

/** Fetches the app's OpenAPI document (default `/api/docs-json`). */
export async function fetchDocument(baseUrl: string, docsJsonPath = '/api/docs-json', headers: Record<string, string> = {}): Promise<OpenApiDocument> {
  const res = await fetch(`${baseUrl}${docsJsonPath}`, { headers });
  if (!res.ok) throw new Error(`${baseUrl}${docsJsonPath} answered ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}

/** Fetches the app's OpenAPI document (default `/api/docs-json`) and returns operationsOf it. */
export async function fetchOperations(baseUrl: string, docsJsonPath = '/api/docs-json', headers: Record<string, string> = {}): Promise<string[]> {
  return operationsOf(await fetchDocument(baseUrl, docsJsonPath, headers));
}

/**
 * The statuses rows expect that their operation does not document (`responses` of the document; a
 * `default` response covers any). Rows whose operation the document does not hold are not looked at.
 */
export function undocumentedStatuses(document: OpenApiDocument, rows: Record<string, Pick<MatrixRow<unknown>, 'expect' | 'owner'>>): string[] {
  const problems: string[] = [];
  for (const [operation, row] of Object.entries(rows)) {
    const [method, ...rest] = operation.split(' ');
    const op = document.paths?.[rest.join(' ')]?.[method!.toLowerCase()] as { responses?: Record<string, unknown> } | undefined;
    if (!op) continue;
    const responses = op.responses ?? {};
    if ('default' in responses) continue;
    const statuses = new Set([...Object.values(row.expect), row.owner].filter((x): x is number => x !== undefined));
    for (const status of [...statuses].sort()) {
      if (!(String(status) in responses)) problems.push(`${operation} answers ${status}, which its document does not list (it lists ${Object.keys(responses).join(', ') || 'nothing'})`);
    }
  }
  return problems;
}

/** The operations without a row and the rows without an operation (both empty: the sets are the same). */
export function compareRowsToOperations(rows: string[], operations: string[]): { withoutRow: string[]; withoutOperation: string[] } {
  const rowSet = new Set(rows);
  const opSet = new Set(operations);
  return {
    withoutRow: [...opSet].filter((op) => !rowSet.has(op)).sort(),
    withoutOperation: [...rowSet].filter((row) => !opSet.has(row)).sort(),
  };
}

/** The method of an operation key ('GET /a/{id}' → 'GET'). */
export function methodOf(operation: string): string {
  const method = operation.split(' ', 1)[0]!;
  if (!METHODS.includes(method.toLowerCase())) throw new Error(`"${operation}" does not start with an HTTP method`);
  return method;
}

/** What is wrong with a row's declaration itself (no callers; callers left out without a note). */
export function rowProblems(row: Pick<MatrixRow<unknown>, 'expect' | 'public' | 'note'>): string[] {
  const listed = CALLERS.filter((c) => row.expect[c] !== undefined);
  if (listed.length === 0) return ['lists no caller'];
  const missing = CALLERS.filter((c) => row.expect[c] === undefined);
  if (missing.length && !row.public && !row.note) return [`leaves out ${missing.join(', ')} without a note saying why`];
  return [];
}

/** What `caller`'s answer to `row` must not show: the owner's secrets (unless the row lets it see the owner's data) and its own `secretsFor`. */
export function secretsToLookFor(caller: Caller, row: Pick<MatrixRow<unknown>, 'seesOwnerData'>, setup: Pick<MatrixSetup<unknown>, 'secrets' | 'secretsFor'>): string[] {
  return [...(row.seesOwnerData?.includes(caller) ? [] : setup.secrets), ...(setup.secretsFor?.[caller] ?? [])];
}

/** The secrets found in a text (the ones the caller sent itself excepted: echoing them back leaks nothing). */
export function leakedSecrets(text: string, secrets: string[], sent = ''): string[] {
  return secrets.filter((s) => s.length > 0 && text.includes(s) && !sent.includes(s));
}

interface Answer {
  status: number;
  text: string;
  headers: string;
}

async function send(baseUrl: string, method: string, req: MatrixRequest, credential: Record<string, string>): Promise<Answer> {
  const headers: Record<string, string> = { ...credential, ...req.headers };
  let body: string | Buffer | undefined;
  if (req.rawBody !== undefined) body = req.rawBody;
  else if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${baseUrl}${req.path}`, { method, headers, body, redirect: 'manual' });
  const text = method === 'HEAD' ? '' : await readText(res);
  const headerText = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
  return { status: res.status, text, headers: headerText };
}

/** The body, or its first 1 MiB for a stream that does not end (an SSE feed answered 200). */
async function readText(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), 2_000);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.length;
      if (size > 1 << 20) {
        await reader.cancel();
        break;
      }
    }
  } catch {
    // cancelled: what came so far is the answer
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Declares one Jest describe: beforeAll runs setup; one test checks that the rows and the document's
 * operations are the same set (a new route without a row fails, naming it; a row without a route fails;
 * with `document`, a status a row expects that its operation does not document fails too);
 * then one test per row sends the row's request as each caller in `expect` and asserts the status and that
 * no `secrets` string appears in the answer's body or headers (for every caller but those the row lists
 * in `seesOwnerData`, and each caller's `secretsFor` always; a secret the request itself carries is not
 * looked for). A row with `owner` is then sent as the owner too, last. A row's `callers` replace the setup's headers for that row.
 */
export function describeAuthorizationMatrix<Ctx>(
  name: string,
  setup: () => Promise<MatrixSetup<Ctx>>,
  rows: Record<string, MatrixRow<Ctx>>,
): void {
  describe(`authorization matrix: ${name}`, () => {
    let matrix: MatrixSetup<Ctx> | undefined;

    beforeAll(async () => {
      matrix = await setup();
    });

    afterAll(async () => {
      await matrix?.close();
    });

    it('has one row per operation of the OpenAPI document (each expected status documented, when the document is given)', () => {
      const { withoutRow, withoutOperation } = compareRowsToOperations(Object.keys(rows), matrix!.operations);
      const problems = [
        ...withoutRow.map((op) => `no row for ${op}`),
        ...withoutOperation.map((row) => `row ${row} matches no operation of the document`),
        ...Object.entries(rows).flatMap(([key, row]) => rowProblems(row).map((p) => `row ${key} ${p}`)),
        ...(matrix!.document ? undocumentedStatuses(matrix!.document, rows) : []),
      ];
      expect(problems).toEqual([]);
    });

    for (const [operation, row] of Object.entries(rows)) {
      const method = methodOf(operation);
      const title = `${operation}${row.public ? ' (public)' : ''}`;
      it(title, async () => {
        const m = matrix!;
        const failures: string[] = [];
        const own = row.callers?.(m.ctx) ?? {};
        const sent: Array<[Caller | 'owner', number, Record<string, string>]> = CALLERS.filter((c) => row.expect[c] !== undefined).map((c) => [
          c,
          row.expect[c]!,
          c === 'none' ? {} : (own[c] ?? m.callers[c]),
        ]);
        if (row.owner !== undefined) {
          const owner = own.owner ?? m.owner;
          if (!owner) throw new Error(`row ${operation} sets owner but neither the row nor the setup has owner headers`);
          sent.push(['owner', row.owner, owner]);
        }
        for (const [caller, status, credential] of sent) {
          const req = row.request(m.ctx);
          const answer = await send(m.baseUrl, method, req, credential);
          if (answer.status !== status) {
            failures.push(`${caller}: expected ${status}, got ${answer.status} ${answer.text.slice(0, 300)}`);
          }
          if (caller !== 'owner') {
            const requestText = `${req.path}\n${req.body === undefined ? '' : JSON.stringify(req.body)}\n${req.rawBody?.toString() ?? ''}`;
            const secrets = secretsToLookFor(caller, row, m);
            const leaked = leakedSecrets(`${answer.headers}\n${answer.text}`, secrets, requestText);
            if (leaked.length) failures.push(`${caller}: the answer (${answer.status}) shows ${leaked.join(', ')}, which it must not see`);
          }
        }
        expect(failures).toEqual([]);
      });
    }
  });
}
