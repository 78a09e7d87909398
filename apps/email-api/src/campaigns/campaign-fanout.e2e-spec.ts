import { Database } from '@platform/database';
import { createTestDatabase, freePort, startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink, type TestRabbit } from '@platform/testing';
import { Client } from 'pg';
import { newId } from '../common/ids';
import { bearer, eventually, newProject, startEmailApi, type EmailTestApp } from '../../test/helpers';
import { testRabbit, verifiedDomain } from '../../test/marketing';
import { EmailReplicas, expectOnlyTheKillWindowLost, projectWithDomain, replicaApi, undeliveredMails, type UndeliveredMail } from '../../test/replicas';

/** Recipients of the fan-out run: 5 RabbitMQ batches of SEND_BATCH. The 10,000-recipient run, with the same exactly-once check, is `npm run bench`'s ('email-api campaigns'). */
const CONTACTS = 1_000;
/** Recipients of the restart scenarios: enough batches and mails in flight to be killed in the middle of, fewer than the throughput run's (the suite's time). */
const RESTART_CONTACTS = 1_500;
/** Mails the killed sender has in flight (SEND_CONCURRENCY). */
const LANES = 8;

/** Subscribed contacts written straight into the table (one statement). */
async function seedContacts(query: (sql: string, params: unknown[]) => Promise<unknown>, table: string, projectId: string, count: number): Promise<void> {
  const ids = Array.from({ length: count }, () => newId('cnt'));
  await query(
    `INSERT INTO ${table} (id, project_id, email, subscribed, data) SELECT id, $2, 'reader' || n || '@example.com', true, jsonb_build_object('group', CASE WHEN n % 10 = 0 THEN 'b' ELSE 'a' END, 'n', n)
       FROM unnest($1::text[]) WITH ORDINALITY AS x(id, n)`,
    [ids, projectId],
  );
}

/** Each recipient of the campaign, with the Message-IDs of the copies the sink received. */
function copiesByRecipient(smtp: FakeSmtpSink, campaignId: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of smtp.messages) {
    if (m.headers['x-campaign-id'] !== campaignId) continue;
    const list = out.get(m.to[0]) ?? [];
    list.push(m.headers['message-id']);
    out.set(m.to[0], list);
  }
  return out;
}

describe('campaign fan-out to a segment (e2e)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let rabbit: TestRabbit | undefined;

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    const broker = await testRabbit();
    rabbit = broker.rabbit;
    t = await startEmailApi({ ...broker.env, DNS_SERVERS: dns.address, SMTP_URL: smtp.url, EMAIL_SEND_RATE: '100000', SEND_BATCH: '200', SMTP_POOL_SIZE: '8' });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
    await rabbit?.cleanup();
  });

  it('sends to a 1,000-contact segment through RabbitMQ batches: every mail in the sink exactly once, then SENT', async () => {
    const { project } = await newProject(t, 'Big list');
    await verifiedDomain(t, dns, project, 'big.acme.test');
    const db = t.app.get(Database);
    await seedContacts((sql, params) => db.rows(sql, params), db.table('contacts'), project.id, CONTACTS + CONTACTS / 9);
    const segment = await t.http.post('/segments').set(bearer(project.secretKey)).send({ name: 'Group A', type: 'DYNAMIC', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.group', operator: 'equals', value: 'a' }] }] } }).expect(201);
    expect(segment.body.memberCount).toBe(CONTACTS);
    smtp.reset();
    const campaign = await t.http.post('/campaigns').set(bearer(project.secretKey)).send({ name: 'Big', subject: 'Hi {{email}}', body: '<p>{{data.n}}</p>', from: 'news@big.acme.test', audienceType: 'SEGMENT', segmentId: segment.body.id }).expect(201);
    await t.http.post(`/campaigns/${campaign.body.id}/send`).set(bearer(project.secretKey)).send({}).expect(200);
    await eventually(async () => (await t.http.get(`/campaigns/${campaign.body.id}`).set(bearer(project.secretKey))).body.status === 'SENT', 'the campaign to be SENT', 4000);
    const copies = copiesByRecipient(smtp, campaign.body.id);
    expect(copies.size).toBe(CONTACTS);
    expect([...copies.values()].filter((ids) => ids.length !== 1)).toEqual([]);
    expect([...copies.keys()].every((to) => /^reader\d+@example\.com$/.test(to))).toBe(true);
    // the transport is pooled: every mail over SMTP_POOL_SIZE connections, not one connection each
    expect(smtp.connectionsOpened).toBeLessThanOrEqual(8);
    const stats = await t.http.get(`/campaigns/${campaign.body.id}/stats`).set(bearer(project.secretKey)).expect(200);
    expect(stats.body).toMatchObject({ status: 'SENT', recipients: CONTACTS, sent: CONTACTS, queued: 0, failed: 0 });
  }, 300_000);
});

/**
 * The service in child processes on one database: the first is stopped mid-send (SIGTERM as an
 * orchestrator does, or SIGKILL), a second one takes over.
 */
describe('campaign sending survives its worker being killed mid-send (e2e, built service)', () => {
  let replicas: EmailReplicas;

  beforeAll(async () => {
    replicas = await EmailReplicas.create({ EMAIL_SEND_RATE: '1000', SEND_BATCH: '100', SEND_CONCURRENCY: String(LANES) });
  }, 300_000);
  afterAll(async () => {
    await replicas?.close();
  });

  /**
   * Sends the campaign, stops the first replica mid-send, lets a second one finish (the campaign
   * SENT in the database, then the replica stopped gracefully, its last mails ended), and answers
   * the sink's copies by recipient and the campaign's mails that have none.
   */
  async function scenario(signal: 'SIGTERM' | 'SIGKILL'): Promise<{ copies: Map<string, string[]>; missing: UndeliveredMail[]; restartedAt: Date }> {
    const database = await createTestDatabase();
    const port = await freePort();
    const call = replicaApi(port);
    let child = await replicas.start(port, database);
    const { project, key } = await projectWithDomain(call, replicas.dns, { owner: `owner.${signal}@example.com`, project: signal, domain: `${signal.toLowerCase()}.acme.test` });
    const pg = new Client({ connectionString: database.url });
    const schema = database.schema ?? 'email';
    await pg.connect();
    try {
      await seedContacts((sql, params) => pg.query(sql, params), `${schema}.contacts`, project.id, RESTART_CONTACTS);
      const campaign = await call('POST', '/campaigns', { name: signal, subject: 'Hello {{email}}', body: '<p>{{data.n}}</p>', from: `news@${signal.toLowerCase()}.acme.test`, audienceType: 'ALL' }, key);
      await call('POST', `/campaigns/${campaign.body.id}/send`, {}, key);
      await eventually(async () => copiesByRecipient(replicas.smtp, campaign.body.id).size >= RESTART_CONTACTS / 4, 'a quarter of the mails', 2000);
      await replicas.kill(child, signal);
      expect(copiesByRecipient(replicas.smtp, campaign.body.id).size).toBeLessThan(RESTART_CONTACTS);
      const [{ now: restartedAt }] = (await pg.query<{ now: Date }>('SELECT now()')).rows;
      child = await replicas.start(port, database);
      // Read in the database rather than asked of the API every 25 ms (the project's request limit).
      await eventually(async () => (await pg.query(`SELECT status FROM ${schema}.campaigns WHERE id = $1`, [campaign.body.id])).rows[0]?.status === 'SENT', 'the campaign to be SENT after the restart', 4000);
      // Stopped gracefully: the mails it had in flight are ended and answered first.
      await replicas.kill(child, 'SIGTERM');
      const copies = copiesByRecipient(replicas.smtp, campaign.body.id);
      const missing = await undeliveredMails(pg, schema, 'campaign_id = $1', [campaign.body.id], (to) => copies.has(to));
      return { copies, missing, restartedAt };
    } finally {
      await pg.end();
      await database.drop();
    }
  }

  it('SIGTERM mid-send (a rolling restart): the second process finishes, every mail in the sink exactly once', async () => {
    const { copies, missing } = await scenario('SIGTERM');
    expect(missing).toEqual([]);
    expect(copies.size).toBe(RESTART_CONTACTS);
    expect([...copies.values()].filter((ids) => ids.length !== 1)).toEqual([]);
  }, 300_000);

  it('SIGKILL mid-send: the second process finishes, nobody gets a second copy, and no mail is lost beyond the one documented window', async () => {
    const { copies, missing, restartedAt } = await scenario('SIGKILL');
    expect([...copies.values()].filter((ids) => ids.length !== 1)).toEqual([]);
    expectOnlyTheKillWindowLost(missing, restartedAt, LANES);
    expect(copies.size + missing.length).toBe(RESTART_CONTACTS);
  }, 300_000);
});
