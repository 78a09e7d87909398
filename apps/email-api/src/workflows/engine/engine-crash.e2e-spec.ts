import { createTestDatabase, freePort, type TestDatabase } from '@platform/testing';
import { Client } from 'pg';
import { newId } from '../../common/ids';
import { eventually } from '../../../test/helpers';
import { EmailReplicas, expectOnlyTheKillWindowLost, projectWithDomain, replicaApi, undeliveredMails } from '../../../test/replicas';

const CONTACTS = 400;
/** Mails a sender has in flight (SEND_CONCURRENCY). */
const SEND_LANES = 8;

/**
 * Two replicas of the built service on one database run a workflow `mail → DELAY 1 day → mail` for
 * 400 contacts; one replica is killed (SIGKILL) in the middle of the first sends (the other takes
 * its executions over once their lease ends, and it is restarted), the other in the middle of the
 * delay (the restarted one wakes every execution). Every step run exists exactly once, every
 * execution completes, and each contact gets each mail, but for the one loss a kill mid-send may
 * cause (expectOnlyTheKillWindowLost).
 */
describe('workflow engine: replicas killed mid-send and mid-delay (e2e, built service)', () => {
  let replicas: EmailReplicas;
  let database: TestDatabase;
  let pg: Client;
  const schema = () => database.schema ?? 'email';
  const count = async (sql: string, params: unknown[] = []) => Number((await pg.query(sql, params)).rows[0].n);

  beforeAll(async () => {
    replicas = await EmailReplicas.create({ EMAIL_SEND_RATE: '2000', SEND_CONCURRENCY: String(SEND_LANES), WORKFLOW_CONCURRENCY: '2', WORKFLOW_LEASE_SECONDS: '2' });
    database = await createTestDatabase();
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  }, 300_000);
  afterAll(async () => {
    await replicas?.close();
    await pg?.end();
    await database?.drop();
  });

  it('every step run once, every mail once, after SIGKILLs mid-send and mid-delay', async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    let a = await replicas.start(portA, database);
    const b = await replicas.start(portB, database);
    const call = replicaApi(portA);
    const { project, key } = await projectWithDomain(call, replicas.dns, { owner: 'owner.crash@example.com', project: 'crash', domain: 'crash.acme.test' });
    const first = (await call('POST', '/templates', { name: 'First', subject: 'First', body: '<p>1 {{email}}</p>', from: 'hi@crash.acme.test' }, key)).body.id;
    const second = (await call('POST', '/templates', { name: 'Second', subject: 'Second', body: '<p>2 {{email}}</p>', from: 'hi@crash.acme.test' }, key)).body.id;
    const wf = (await call('POST', '/workflows', { name: 'Crash' }, key)).body.id;
    const trigger = (await call('GET', `/workflows/${wf}`, undefined, key)).body.steps.find((s: { type: string }) => s.type === 'TRIGGER').id;
    const mail1 = (await call('POST', `/workflows/${wf}/steps`, { type: 'SEND_EMAIL', name: 'first', config: { templateId: first } }, key)).body.id;
    const hold = (await call('POST', `/workflows/${wf}/steps`, { type: 'DELAY', name: 'hold', config: { amount: 1, unit: 'days' } }, key)).body.id;
    const mail2 = (await call('POST', `/workflows/${wf}/steps`, { type: 'SEND_EMAIL', name: 'second', config: { templateId: second } }, key)).body.id;
    for (const [from, to] of [[trigger, mail1], [mail1, hold], [hold, mail2]]) await call('POST', `/workflows/${wf}/transitions`, { fromStepId: from, toStepId: to }, key);
    await call('PATCH', `/workflows/${wf}`, { triggerType: 'MANUAL', enabled: true }, key);

    // 400 contacts enter at once (their executions written in one statement, as a start writes them)
    const s = schema();
    const ids = Array.from({ length: CONTACTS }, () => newId('cnt'));
    await pg.query(
      `INSERT INTO ${s}.contacts (id, project_id, email, subscribed, data) SELECT id, $2, 'member' || n || '@example.com', true, '{}'::jsonb FROM unnest($1::text[]) WITH ORDINALITY AS x(id, n)`,
      [ids, project.id],
    );
    await pg.query(
      `INSERT INTO ${s}.workflow_executions (project_id, workflow_id, contact_id, status, current_step_id, trigger, start_key, due_at)
       SELECT $1, $2, id, 'RUNNING', $3, '{"type":"MANUAL","data":{}}'::jsonb, 'crash:' || id, now() FROM unnest($4::text[]) AS x(id)`,
      [project.id, wf, trigger, ids],
    );
    const sentSteps = (stepId: string) => count(`SELECT count(*) AS n FROM ${s}.workflow_step_runs WHERE step_id = $1 AND status = 'COMPLETED'`, [stepId]);

    // mid-send: replica A dies while the first mails are being written
    await eventually(async () => (await sentSteps(mail1)) >= CONTACTS / 5, 'a fifth of the first mails', 2000);
    await replicas.kill(a);
    expect(await sentSteps(mail1)).toBeLessThan(CONTACTS);
    const [{ now: restartedAt }] = (await pg.query<{ now: Date }>('SELECT now()')).rows;
    a = await replicas.start(portA, database);
    await eventually(async () => (await count(`SELECT count(*) AS n FROM ${s}.workflow_executions WHERE workflow_id = $1 AND status = 'WAITING'`, [wf])) === CONTACTS, 'every execution waiting in its delay', 2000);

    // mid-delay: replica B dies while every execution waits; then the day passes and A alone goes on
    await replicas.kill(b);
    await pg.query(`UPDATE ${s}.workflow_executions SET due_at = now() WHERE workflow_id = $1 AND status = 'WAITING'`, [wf]);
    await eventually(async () => (await count(`SELECT count(*) AS n FROM ${s}.workflow_executions WHERE workflow_id = $1 AND status = 'COMPLETED'`, [wf])) === CONTACTS, 'every execution completed', 2000);
    // exactly once: four step runs per execution (seq 1–4, each completed), two mails each
    const runs = await pg.query(
      `SELECT e.id, array_agg(r.step_type || ':' || r.status ORDER BY r.seq) AS steps, array_agg(r.seq ORDER BY r.seq) AS seqs
         FROM ${s}.workflow_executions e JOIN ${s}.workflow_step_runs r ON r.execution_id = e.id WHERE e.workflow_id = $1 GROUP BY e.id`,
      [wf],
    );
    expect(runs.rows).toHaveLength(CONTACTS);
    const shapes = new Set(runs.rows.map((r: { steps: string[]; seqs: number[] }) => `${r.steps.join(',')} ${r.seqs.join(',')}`));
    expect([...shapes]).toEqual(['TRIGGER:COMPLETED,SEND_EMAIL:COMPLETED,DELAY:COMPLETED,SEND_EMAIL:COMPLETED 1,2,3,4']);
    const mails = await pg.query(`SELECT workflow_execution_id, count(*)::int AS n FROM ${s}.emails WHERE workflow_execution_id IS NOT NULL GROUP BY 1`);
    expect(mails.rows).toHaveLength(CONTACTS);
    expect(mails.rows.filter((r: { n: number }) => r.n !== 2)).toEqual([]);
    await eventually(async () => (await count(`SELECT count(*) AS n FROM ${s}.emails WHERE workflow_execution_id IS NOT NULL AND status <> 'SENT'`)) === 0, 'every mail sent', 2000);
    // stopped gracefully: the mails it had in flight are ended and answered first
    await replicas.kill(a, 'SIGTERM');
    const copies = new Map<string, number>();
    for (const m of replicas.smtp.messages.filter((x) => x.to[0].startsWith('member'))) copies.set(`${m.to[0]} ${m.subject}`, (copies.get(`${m.to[0]} ${m.subject}`) ?? 0) + 1);
    // every mail reached the sink but for what the SIGKILL mid-send may cost; that each went out
    // once is the send worker's own guarantee, tested with the campaign crash test (a duplicate here
    // is logged with its mail row for diagnosis)
    const lost = await undeliveredMails(pg, s, 'workflow_execution_id IS NOT NULL', [], (to, subject) => copies.has(`${to} ${subject}`));
    expectOnlyTheKillWindowLost(lost, restartedAt, SEND_LANES);
    expect(lost.every((m) => m.subject === 'First')).toBe(true);
    expect(copies.size + lost.length).toBe(2 * CONTACTS);
    const twice = [...copies.entries()].filter(([, n]) => n !== 1).map(([k]) => k.split(' ')[0]);
    if (twice.length) console.warn('delivered more than once:', JSON.stringify((await pg.query(`SELECT to_email, subject, status, attempts, message_id, sent_at FROM ${s}.emails WHERE to_email = ANY($1)`, [twice])).rows));
  }, 300_000);
});
