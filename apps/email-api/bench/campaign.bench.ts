/**
 * email-api benchmarks of part 2 for `npm run bench` (tools/bench.ts):
 *
 * - campaign fan-out: a campaign to N contacts (default 10,000) from a verified, DKIM-signing domain,
 *   from `POST /campaigns/:id/send` to the last mail accepted by an SMTP sink on loopback, in mails
 *   per second. The baseline: nodemailer alone (the same pooled transport, no database, no DKIM)
 *   sending as many mails to the same sink. The sink runs in a process of its own
 *   (./smtp-sink-process), as a mail server would, so that its SMTP parsing is not done on the
 *   service's event loop. Every recipient must be in the sink exactly once, or the
 *   bench throws. The detail line gives the machine's RSA-2048 signatures a second on one core
 *   (rsaSignaturesPerSecond), which bounds the fan-out.
 * - segment count: `POST /segments/:id/refresh` of a dynamic segment (custom field, date and event
 *   filters) over 100,000 contacts, median of 7; the baseline is a bare `count(*)` of the project's
 *   contacts on the same database.
 *
 * Uses DATABASE_URL (a throwaway schema, dropped afterwards) or the embedded PostgreSQL, and AMQP_URL
 * for the fan-out messages when set (else the in-process bus), as the service would.
 */
import { Database } from '@platform/database';
// The SMTP sink and DNS server of the tests stand in for the outside systems (a benchmark, never shipped).
import { startFakeDnsServer } from '@platform/testing';
import nodemailer from 'nodemailer';
import { fork, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { newId } from '../src/common/ids';
import { emailApiService } from '../src/service';
import { startBenchService, type BenchMeasurement } from '@platform/bench';
import { benchEnv, benchProject, benchTag, json, round, verifiedBenchDomain } from './bench-api';

export interface EmailCampaignBenchOptions {
  /** Campaign recipients (default 10,000). */
  recipients?: number;
  /** Contacts of the segment count (default 100,000). */
  contacts?: number;
  databaseUrl?: string;
  amqpUrl?: string;
}

const POOL = 16;
/** Mails in flight at once (SEND_CONCURRENCY): enough to keep the pool and the MIME threads busy. */
const LANES = 32;

/**
 * RSA-2048 signatures a second on one core, signed for half a second: every campaign mail needs one
 * (its DKIM signature), so this bounds the fan-out on the machine the bench runs on.
 */
function rsaSignaturesPerSecond(): number {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = Buffer.from('DKIM-Signature');
  const started = performance.now();
  let signed = 0;
  while (performance.now() - started < 500) {
    sign('sha256', data, privateKey);
    signed++;
  }
  return signed / ((performance.now() - started) / 1000);
}

/** The SMTP sink in its own process (./smtp-sink-process), driven over IPC. */
class SinkProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<SinkProcess> {
    const child = fork(join(__dirname, 'smtp-sink-process.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await once(child, 'message'); // ready
    const { url } = await ask<{ url: string }>(child, { op: 'url' });
    return new SinkProcess(child, url);
  }

  reset(): Promise<unknown> {
    return ask(this.child, { op: 'reset' });
  }

  /** Waits for `count` mails; answers how many arrived and to how many distinct recipients of the campaign. */
  wait(count: number, timeoutMs: number, campaignId?: string): Promise<{ messages: number; recipients: number }> {
    return ask(this.child, { op: 'wait', count, timeoutMs, campaignId });
  }

  async close(): Promise<void> {
    const exited = this.child.exitCode === null ? once(this.child, 'exit') : Promise.resolve();
    this.child.disconnect();
    await exited;
  }
}

function ask<T>(child: ChildProcess, request: object): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (m: T & { error?: string }) => (m.error ? reject(new Error(`bench: SMTP sink: ${m.error}`)) : resolve(m)));
    child.send(request);
  });
}

export async function runEmailCampaignBench(opts: EmailCampaignBenchOptions = {}): Promise<BenchMeasurement[]> {
  const recipients = opts.recipients ?? 10_000;
  const contacts = opts.contacts ?? 100_000;
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const amqpUrl = opts.amqpUrl ?? process.env.AMQP_URL;
  const tag = benchTag();
  const smtp = await SinkProcess.start();
  const dns = await startFakeDnsServer();
  const bench = await startBenchService(
    emailApiService,
    {
      ...benchEnv(tag, amqpUrl),
      SMTP_URL: smtp.url,
      DNS_SERVERS: dns.address,
      EMAIL_SEND_RATE: '100000',
      SEND_BATCH: '200',
      SMTP_POOL_SIZE: String(POOL),
      SEND_CONCURRENCY: String(LANES),
      WORKER_POLL_MS: '50',
    },
    databaseUrl,
  );
  const { service } = bench;
  try {
    const { project, auth } = await benchProject(service.url);
    await verifiedBenchDomain(service.url, auth, dns, 'bench.example.test');

    // Contacts straight into the table: `recipients` in group "a" (the campaign), the rest up to `contacts`.
    const db = service.app.get(Database);
    const insert = async (count: number, group: string) => {
      for (let done = 0; done < count; done += 10_000) {
        const n = Math.min(10_000, count - done);
        await db.rows(
          `INSERT INTO ${db.table('contacts')} (id, project_id, email, subscribed, data, created_at)
           SELECT id, $2, $3 || '-' || ($4 + k) || '@example.com', true, jsonb_build_object('group', $3::text, 'plan', CASE WHEN k % 3 = 0 THEN 'pro' ELSE 'free' END, 'score', k % 100),
                  now() - make_interval(days => (k % 90)::int)
             FROM unnest($1::text[]) WITH ORDINALITY AS x(id, k)`,
          [Array.from({ length: n }, () => newId('cnt')), project.id, group, done],
        );
      }
    };
    await insert(recipients, 'a');
    const segment = (await json(`${service.url}/segments`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'A', type: 'DYNAMIC', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.group', operator: 'equals', value: 'a' }] }] } }) })).body;
    /** One campaign to the segment, from send to the last mail in the sink (every recipient exactly once); answers the seconds. */
    const runCampaign = async (name: string): Promise<number> => {
      const campaign = (await json(`${service.url}/campaigns`, { method: 'POST', headers: auth, body: JSON.stringify({ name, subject: 'Hello {{email}}', body: '<p>Plan {{data.plan}}</p><a href="{{unsubscribeUrl}}">unsubscribe</a>', from: 'news@bench.example.test', audienceType: 'SEGMENT', segmentId: segment.id }) })).body;
      await smtp.reset();
      const started = performance.now();
      await json(`${service.url}/campaigns/${campaign.id}/send`, { method: 'POST', headers: auth, body: '{}' });
      await smtp.wait(recipients, 600_000);
      const elapsed = (performance.now() - started) / 1000;
      // a second look a moment later: a copy sent twice would arrive after the last first copy
      await new Promise((r) => setTimeout(r, 500));
      const seen = await smtp.wait(recipients, 1000, campaign.id);
      if (seen.recipients !== recipients || seen.messages !== recipients) throw new Error(`bench: ${seen.messages} mails in the sink for ${seen.recipients} distinct of ${recipients} recipients`);
      return elapsed;
    };
    const signaturesPerSecond = rsaSignaturesPerSecond();
    const seconds = await runCampaign('bench');

    // The same campaign with every monthly cap set (the campaigns cap checked by the launch and taken
    // by each fan-out batch), between two more runs without caps: its ratio to their mean.
    const limits = (body: object) => json(`${service.url}/users/@me/projects/${project.id}/billing-limits`, { method: 'PUT', headers: auth, body: JSON.stringify(body) });
    await limits({ workflows: 1_000_000, campaigns: 1_000_000, transactional: 1_000_000, inbound: 1_000_000 });
    const cappedSeconds = await runCampaign('bench capped');
    await limits({ workflows: null, campaigns: null, transactional: null, inbound: null });
    const uncappedSeconds = await runCampaign('bench uncapped');
    const used = (await json(`${service.url}/users/@me/projects/${project.id}/billing-consumption`, { headers: auth })).body.categories.campaigns.used;
    if (used !== 3 * recipients) throw new Error(`bench: the campaigns counter says ${used}, ${3 * recipients} mails were sent`);

    // Baseline: nodemailer alone, same pool, same sink, same number of mails.
    await smtp.reset();
    const transport = nodemailer.createTransport({ url: smtp.url, pool: true, maxConnections: POOL, maxMessages: Infinity });
    const baseStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 200 }, async () => {
        while (next < recipients) {
          const i = next++;
          await transport.sendMail({ from: 'news@bench.example.test', to: `base-${i}@example.com`, subject: `Hello ${i}`, html: '<p>Plan pro</p>' });
        }
      }),
    );
    await smtp.wait(recipients, 60_000);
    const baseSeconds = (performance.now() - baseStarted) / 1000;
    transport.close();

    // Segment count over `contacts` contacts.
    await insert(contacts - recipients, 'b');
    const big = (await json(`${service.url}/segments`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'Pro, recent', type: 'DYNAMIC', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'createdAt', operator: 'within', value: 30, unit: 'days' }, { field: 'data.score', operator: 'greaterThan', value: 50 }] }] } }),
    })).body;
    await db.rows(`ANALYZE ${db.table('contacts')}`);
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const countTimes: number[] = [];
    let memberCount = 0;
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      memberCount = (await json(`${service.url}/segments/${big.id}/refresh`, { method: 'POST', headers: auth })).body.memberCount;
      countTimes.push(performance.now() - t0);
    }
    const bareTimes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      await db.rows(`SELECT count(*) FROM ${db.table('contacts')} WHERE project_id = $1`, [project.id]);
      bareTimes.push(performance.now() - t0);
    }
    const perSecond = recipients / seconds;
    const basePerSecond = recipients / baseSeconds;
    const cappedPerSecond = recipients / cappedSeconds;
    const uncappedPerSecond = (perSecond + recipients / uncappedSeconds) / 2;
    return [
      {
        name: 'email-api: campaign fan-out mails/s',
        value: round(perSecond),
        unit: 'mails/s',
        baseline: round(basePerSecond),
        ratio: round(perSecond / basePerSecond, 3),
        detail: `${recipients} recipients of a dynamic segment, from POST /campaigns/:id/send to the last mail accepted by an SMTP sink on loopback (DKIM-signed in worker threads, ${amqpUrl ? 'RabbitMQ' : 'in-process'} fan-out in batches of 500, ${LANES} mails in flight over ${POOL} pooled SMTP connections, the sink in its own process), every recipient exactly once; baseline: nodemailer alone to the same sink; this machine signs ${Math.round(signaturesPerSecond)} RSA-2048 signatures/s on one core (goal ≥ 1,000/s; listmonk's default 10/s)`,
      },
      {
        name: 'email-api: campaign fan-out with billing caps mails/s',
        value: round(cappedPerSecond),
        unit: 'mails/s',
        baseline: round(uncappedPerSecond),
        ratio: round(cappedPerSecond / uncappedPerSecond, 3),
        detail: `the same ${recipients}-recipient campaign with every monthly cap set (the launch checks what is left, each fan-out batch takes its units with a conditional upsert of the counter row in its transaction), run after the campaign above; baseline: the mean of that run and one more without caps after it (${round(recipients / uncappedSeconds)} mails/s); the counter equals the mails sent (goal: ratio ≥ 0.9)`,
      },
      {
        name: 'email-api: segment count at 100k contacts',
        value: round(median(countTimes)),
        unit: 'ms',
        baseline: round(median(bareTimes)),
        ratio: round(median(countTimes) / Math.max(median(bareTimes), 0.1), 3),
        detail: `POST /segments/:id/refresh of data.plan = pro AND createdAt within 30 days AND data.score > 50 over ${contacts} contacts (${memberCount} members), median of 7; baseline: a bare count(*) of the project's contacts (goal < 200 ms)`,
      },
    ];
  } finally {
    await bench.close();
    await smtp.close();
    await dns.close();
  }
}
