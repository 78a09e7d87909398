/**
 * email-api workflow engine benchmark for `npm run bench`: 10,000 contacts enter a three-step
 * workflow at once — a SEGMENT_ENTRY trigger on a tracked segment whose compute makes all of them
 * members in one request — `SEND_EMAIL` (stored: no SMTP server, the engine's part is the mail
 * written with its step run) → `CONDITION` (plan is pro?) → `UPDATE_CONTACT` (one per branch).
 * Measured: step runs per second (4 per execution, the TRIGGER's included) from the compute request
 * to the last execution COMPLETED: the membership events through the outbox and the bus, the
 * consumer's starts and the engine's steps. Baseline, in the same run: as many bare single-row
 * INSERTs (the least one step run costs) over as many connections as the engine's lanes.
 * Throws unless every execution completed with exactly its four step runs (seq 1–4) and one mail.
 */
import { Database } from '@platform/database';
// The DNS server of the tests stands in for the sending domain's DNS host (a benchmark, never shipped).
import { startFakeDnsServer } from '@platform/testing';
import { randomUUID } from 'node:crypto';
import { newId } from '../src/common/ids';
import { emailApiService } from '../src/service';
import { inParallel, startBenchService, type BenchMeasurement } from '@platform/bench';
import { benchEnv, benchProject, benchTag, json, round, verifiedBenchDomain } from './bench-api';

export interface EmailWorkflowBenchOptions {
  /** Contacts entering (default 10,000). */
  contacts?: number;
  /** WORKFLOW_CONCURRENCY (default 16). */
  lanes?: number;
  databaseUrl?: string;
  amqpUrl?: string;
}

export async function runEmailWorkflowBench(opts: EmailWorkflowBenchOptions = {}): Promise<BenchMeasurement[]> {
  const contacts = opts.contacts ?? 10_000;
  const lanes = opts.lanes ?? 16;
  const databaseUrl = opts.databaseUrl ?? process.env.DATABASE_URL;
  const amqpUrl = opts.amqpUrl ?? process.env.AMQP_URL;
  const tag = benchTag('email_wf_bench');
  const dns = await startFakeDnsServer();
  const bench = await startBenchService(
    emailApiService,
    {
      ...benchEnv(tag, amqpUrl),
      DNS_SERVERS: dns.address,
      WORKER_POLL_MS: '50',
      WORKFLOW_CONCURRENCY: String(lanes),
      DB_POOL_MAX: String(lanes + 8),
      SEGMENT_COMPUTE_INLINE_MAX: String(contacts),
    },
    databaseUrl,
  );
  const { service } = bench;
  try {
    const { project, auth } = await benchProject(service.url);
    const call = (method: string, path: string, body?: unknown) => json(`${service.url}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }).then((r) => r.body);
    await verifiedBenchDomain(service.url, auth, dns, 'flows.bench.test');
    const template = await call('POST', '/templates', { name: 'Welcome', subject: 'Welcome {{email}}', body: '<p>Hi {{data.plan}}</p><a href="{{unsubscribeUrl}}">unsubscribe</a>', from: 'hello@flows.bench.test' });
    const segment = await call('POST', '/segments', { name: 'Members', type: 'DYNAMIC', trackMembership: true, condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.member', operator: 'equals', value: true }] }] } });
    const wf = await call('POST', '/workflows', { name: 'Bench' });
    const trigger = (await call('GET', `/workflows/${wf.id}`)).steps.find((s: { type: string }) => s.type === 'TRIGGER').id;
    const step = async (type: string, name: string, config: unknown) => (await call('POST', `/workflows/${wf.id}/steps`, { type, name, config })).id as string;
    const send = await step('SEND_EMAIL', 'welcome', { templateId: template.id });
    const pro = await step('CONDITION', 'pro?', { field: 'contact.data.plan', operator: 'equals', value: 'pro' });
    const markPro = await step('UPDATE_CONTACT', 'mark pro', { data: { welcomed: 'pro' } });
    const markFree = await step('UPDATE_CONTACT', 'mark free', { data: { welcomed: 'free' } });
    for (const [from, to, branch] of [[trigger, send], [send, pro], [pro, markPro, 'yes'], [pro, markFree, 'no']]) {
      await call('POST', `/workflows/${wf.id}/transitions`, { fromStepId: from, toStepId: to, ...(branch ? { branch } : {}) });
    }
    await call('PATCH', `/workflows/${wf.id}`, { triggerType: 'SEGMENT_ENTRY', triggerConfig: { segmentId: segment.id }, enabled: true });

    const db = service.app.get(Database);
    const ids = Array.from({ length: contacts }, () => newId('cnt'));
    await db.rows(
      `INSERT INTO ${db.table('contacts')} (id, project_id, email, subscribed, data)
       SELECT id, $2, 'member-' || n || '@bench.test', true, jsonb_build_object('member', true, 'plan', CASE WHEN n % 3 = 0 THEN 'pro' ELSE 'free' END) FROM unnest($1::text[]) WITH ORDINALITY AS x(id, n)`,
      [ids, project.id],
    );
    const completed = async () => (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('workflow_executions')} WHERE workflow_id = $1 AND status = 'COMPLETED'`, [wf.id]))!.n;

    // everybody enters at once: one compute request, then the engine runs until the last execution completes
    const started = performance.now();
    await call('POST', `/segments/${segment.id}/compute`);
    const deadline = Date.now() + 600_000;
    while ((await completed()) < contacts) {
      if (Date.now() > deadline) throw new Error(`bench: only ${await completed()} of ${contacts} executions completed in 10 minutes`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;

    // none lost or run twice
    const check = await db.one<{ executions: number; good: number; mails: number; updated: number }>(
      `SELECT (SELECT count(*)::int FROM ${db.table('workflow_executions')} WHERE workflow_id = $1) AS executions,
              (SELECT count(*)::int FROM (SELECT r.execution_id FROM ${db.table('workflow_step_runs')} r JOIN ${db.table('workflow_executions')} e ON e.id = r.execution_id
                 WHERE e.workflow_id = $1 GROUP BY r.execution_id HAVING array_agg(r.seq ORDER BY r.seq) = ARRAY[1,2,3,4] AND bool_and(r.status = 'COMPLETED')) g) AS good,
              (SELECT count(*)::int FROM ${db.table('emails')} m JOIN ${db.table('workflow_executions')} e ON e.id = m.workflow_execution_id WHERE e.workflow_id = $1) AS mails,
              (SELECT count(*)::int FROM ${db.table('contacts')} WHERE project_id = $2 AND data ? 'welcomed') AS updated`,
      [wf.id, project.id],
    );
    if (!check || check.executions !== contacts || check.good !== contacts || check.mails !== contacts || check.updated !== contacts) {
      throw new Error(`bench: lost or doubled work: ${JSON.stringify(check)} for ${contacts} contacts`);
    }
    const stepRuns = contacts * 4;

    // baseline: the same number of bare one-row INSERTs over as many connections
    await db.rows(`CREATE TABLE ${db.table('bench_rows')} (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), execution_id uuid, seq int, status text, output jsonb, created_at timestamptz DEFAULT now())`);
    const rate = await inParallel(stepRuns, lanes, async (i) => {
      await db.rows(`INSERT INTO ${db.table('bench_rows')} (execution_id, seq, status, output) VALUES ($1, $2, 'COMPLETED', $3::jsonb)`, [randomUUID(), i, '{"ok":true}']);
    });
    const perSecond = stepRuns / seconds;
    return [
      {
        name: 'email-api: workflow step runs/s',
        value: round(perSecond),
        unit: 'step runs/s',
        baseline: round(rate),
        ratio: round(perSecond / rate, 3),
        detail:
          `${contacts} contacts entering at once (segment compute → ${amqpUrl ? 'RabbitMQ' : 'in-process bus'} → starts), SEND_EMAIL → CONDITION → UPDATE_CONTACT, ${stepRuns} step runs in ${round(seconds, 2)} s ` +
          `(${round(contacts / seconds)} executions/s), ${lanes} lanes; every execution completed with its 4 step runs and 1 mail (none lost or doubled); baseline: as many bare one-row INSERTs over ${lanes} connections`,
      },
    ];
  } finally {
    await bench.close();
    await dns.close();
  }
}
