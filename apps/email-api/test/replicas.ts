import { buildForTest, startFakeDnsServer, startFakeSmtpSink, waitHealthy, type FakeDnsServer, type FakeSmtpSink, type TestDatabase, type TestRabbit } from '@platform/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';
import { publish, testRabbit } from './marketing';

/** The repository's root (apps/email-api/test → ../../..), where `dist/apps/email-api/main.js` is built. */
const ROOT = path.resolve(__dirname, '../../..');

/**
 * Replicas of the built service (`dist/apps/email-api/main.js`) in child processes, as production
 * runs them: several at once on one database, stopped by a signal mid-work. `create` builds the app
 * (`buildForTest`, under the build lock) and starts what every replica talks to: a fake DNS server
 * (the sending domains' records), an SMTP sink and, when the test setup found one, RabbitMQ under
 * throwaway names. Each replica gets the settings every such test needs (secrets, quiet logs, no
 * Redis, its inbound SMTP receiver on a free port, 50 ms polls, 2 s send leases), then the test's
 * own variables given to `create` (rates, batch sizes, lanes), then its port, database and data
 * directory, then the variables of `start`. `close()` SIGKILLs what is still running and stops the
 * rest.
 */
export class EmailReplicas {
  private readonly children: ChildProcess[] = [];
  /** One data directory, shared by the replicas as by the pods of one deployment. */
  private readonly dataDir = mkdtempSync(path.join(os.tmpdir(), 'email-replicas-'));

  private constructor(
    readonly dns: FakeDnsServer,
    readonly smtp: FakeSmtpSink,
    private readonly rabbit: TestRabbit | undefined,
    private readonly env: Record<string, string>,
  ) {}

  /** Builds the service and starts the fake DNS server, the SMTP sink and the RabbitMQ names (beforeAll). */
  static async create(env: Record<string, string> = {}): Promise<EmailReplicas> {
    await buildForTest('email-api');
    const dns = await startFakeDnsServer();
    const smtp = await startFakeSmtpSink().catch(async (err) => {
      await dns.close();
      throw err;
    });
    const broker = await testRabbit().catch(async (err) => {
      await Promise.all([dns.close(), smtp.close()]);
      throw err;
    });
    return new EmailReplicas(dns, smtp, broker.rabbit, { ...broker.env, DNS_SERVERS: dns.address, SMTP_URL: smtp.url, ...env });
  }

  /** A replica on `port` and `db` (migrated at its start); resolves once `/healthz` answers. */
  async start(port: number, db: TestDatabase, env: Record<string, string> = {}): Promise<ChildProcess> {
    let output = '';
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/apps/email-api/main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
        DKIM_KEY_SECRET: 'dkim-secret-dkim-secret-dkim-secret-0123',
        REDIS_URL: '',
        // several processes of the service run at once: the inbound SMTP receiver on a free port each
        INBOUND_SMTP_PORT: '0',
        INBOUND_SMTP_HOST: '127.0.0.1',
        WORKER_POLL_MS: '50',
        SEND_LEASE_SECONDS: '2',
        ...this.env,
        PORT: String(port),
        DATABASE_URL: db.url,
        ...(db.schema ? { DATABASE_SCHEMA: db.schema } : {}),
        DATA_DIR: this.dataDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    this.children.push(child);
    await waitHealthy('email-api', `http://127.0.0.1:${port}`, child, () => output);
    return child;
  }

  /** Sends `signal` to a replica (SIGKILL: a crash; SIGTERM: an orchestrator's stop) and waits for it to exit. */
  async kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill(signal);
    await exited;
  }

  /** SIGKILLs every replica still running, stops the fake servers and removes the RabbitMQ names and the data directory (afterAll). */
  async close(): Promise<void> {
    await Promise.all(this.children.map((c) => this.kill(c)));
    await this.dns.close();
    await this.smtp.close();
    await this.rabbit?.cleanup();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface ReplicaAnswer {
  status: number;
  body: any;
  headers: Headers;
}

/** A JSON request to a replica; throws with the answer unless it is 2xx. */
export type ReplicaCall = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<ReplicaAnswer>;

/** JSON requests to the replica on `port`. */
export function replicaApi(port: number): ReplicaCall {
  return async (method, url, body, headers = {}) => {
    const res = await fetch(`http://127.0.0.1:${port}${url}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
}

/**
 * Signs `owner` up, creates a project and a sending domain, publishes its records in `dns` and
 * verifies it; answers the project and the Authorization header of its secret key.
 */
export async function projectWithDomain(
  call: ReplicaCall,
  dns: FakeDnsServer,
  opts: { owner: string; project: string; domain: string },
): Promise<{ project: { id: string; secretKey: string }; key: { authorization: string } }> {
  const signup = await call('POST', '/auth/signup', { email: opts.owner, password: 'correct horse battery', name: 'Owner' });
  const cookie = signup.headers.get('set-cookie')!.split(';')[0];
  const project = (await call('POST', '/users/@me/projects', { name: opts.project }, { cookie })).body;
  const key = { authorization: `Bearer ${project.secretKey}` };
  const domain = await call('POST', '/domains', { domain: opts.domain }, key);
  publish(dns, domain.body.records);
  const verified = (await call('GET', `/domains/${domain.body.id}/verify`, undefined, key)).body;
  if (verified.status !== 'verified') throw new Error(`domain ${opts.domain} did not verify: ${JSON.stringify(verified.checks)}`);
  return { project, key };
}

/** A mail the database holds whose copy is not in the SMTP sink. */
export interface UndeliveredMail {
  to: string;
  subject: string;
  status: string;
  sentAt: Date | null;
}

/**
 * The mails of the emails table matching `where` (its parameters `$1…` in `params`) that have no
 * copy in the sink: `delivered(to, subject)` says whether one arrived.
 */
export async function undeliveredMails(
  pg: Pick<Client, 'query'>,
  schema: string,
  where: string,
  params: unknown[],
  delivered: (to: string, subject: string) => boolean,
): Promise<UndeliveredMail[]> {
  const rows = (await pg.query<{ to_email: string; subject: string; status: string; sent_at: Date | null }>(`SELECT to_email, subject, status, sent_at FROM ${schema}.emails WHERE ${where}`, params)).rows;
  return rows.filter((r) => !delivered(r.to_email.toLowerCase(), r.subject)).map((r) => ({ to: r.to_email, subject: r.subject, status: r.status, sentAt: r.sent_at }));
}

/**
 * What a SIGKILL of a sending replica may cost, and nothing more. The send worker records a round
 * SENT and ends its data on the SMTP connections in one synchronous step (emails/send.worker.ts),
 * but a kill can still land between the COMMIT's write and the end-of-data writes: that round's
 * mails are then recorded SENT and never sent. So the undelivered mails are at most one round of
 * the killed process — no more than its `lanes` (SEND_CONCURRENCY), all SENT by one commit (one
 * `sent_at`), before `restartedAt` — and usually none.
 */
export function expectOnlyTheKillWindowLost(undelivered: UndeliveredMail[], restartedAt: Date, lanes: number): void {
  expect(undelivered.length).toBeLessThanOrEqual(lanes);
  expect(undelivered.filter((m) => m.status !== 'SENT' || m.sentAt === null || m.sentAt >= restartedAt)).toEqual([]);
  expect(new Set(undelivered.map((m) => m.sentAt?.getTime())).size).toBeLessThanOrEqual(1);
}
