import { createTestDatabase, freePort, type TestDatabase } from '@platform/testing';
import { Client } from 'pg';
import { newId } from '../common/ids';
import { eventually } from '../../test/helpers';
import { EmailReplicas, expectOnlyTheKillWindowLost, projectWithDomain, replicaApi, undeliveredMails } from '../../test/replicas';

const CONTACTS = 600;
const TEST_SIZE = 120;
/** Mails the killed sender has in flight (SEND_CONCURRENCY). */
const LANES = 8;

/**
 * An A/B campaign whose sender is SIGKILLed while the winner goes to the rest (the test group has
 * its mails, part of the rest too); a new process on the same database carries on.
 */
describe('A/B campaign across SIGKILLs of its sender (e2e, built service)', () => {
  let replicas: EmailReplicas;
  let database: TestDatabase;
  let pg: Client;
  let port: number;

  beforeAll(async () => {
    // 200 mails a second: the rest takes a few seconds, time to kill in the middle
    replicas = await EmailReplicas.create({ EMAIL_SEND_RATE: '200', SEND_BATCH: '50', SEND_CONCURRENCY: String(LANES) });
    database = await createTestDatabase();
    port = await freePort();
  }, 300_000);
  afterAll(async () => {
    await replicas?.close();
    await pg?.end();
    await database?.drop();
  });

  /** Each recipient of the campaign with the subjects of the copies the sink got. */
  function copies(campaignId: string): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const m of replicas.smtp.messages) {
      if (m.headers['x-campaign-id'] !== campaignId) continue;
      out.set(m.to[0], [...(out.get(m.to[0]) ?? []), m.subject]);
    }
    return out;
  }

  it('each contact gets exactly one mail: the test group its variant, the rest the winner', async () => {
    const call = replicaApi(port);
    let child = await replicas.start(port, database);
    const { project, key } = await projectWithDomain(call, replicas.dns, { owner: 'owner.ab@example.com', project: 'AB crash', domain: 'ab.acme.test' });
    pg = new Client({ connectionString: database.url });
    await pg.connect();
    const schema = database.schema ?? 'email';
    const ids = Array.from({ length: CONTACTS }, () => newId('cnt'));
    await pg.query(
      `INSERT INTO ${schema}.contacts (id, project_id, email, subscribed) SELECT id, $2, 'reader' || n || '@example.com', true FROM unnest($1::text[]) WITH ORDINALITY AS x(id, n)`,
      [ids, project.id],
    );
    const state = async (id: string) => (await pg.query<{ status: string; ab_phase: string | null }>(`SELECT status, ab_phase FROM ${schema}.campaigns WHERE id = $1`, [id])).rows[0];

    const campaign = (
      await call(
        'POST',
        '/campaigns',
        {
          name: 'Crash test',
          subject: 'Hello',
          body: '<p>Hi</p>',
          from: 'news@ab.acme.test',
          audienceType: 'ALL',
          abTest: { variants: [{ subject: 'Subject A' }, { subject: 'Subject B' }], testShare: 20, metric: 'opens', waitMinutes: 60 },
        },
        key,
      )
    ).body;
    await call('POST', `/campaigns/${campaign.id}/send`, {}, key);

    await eventually(async () => (await state(campaign.id)).ab_phase === 'waiting', 'the waiting phase', 2000);
    const test = copies(campaign.id);
    expect(test.size).toBe(TEST_SIZE);
    const subjects = [...test.values()].flat();
    expect(subjects.filter((s) => s === 'Subject A')).toHaveLength(TEST_SIZE / 2);
    expect(subjects.filter((s) => s === 'Subject B')).toHaveLength(TEST_SIZE / 2);

    // the wait runs out; killed while the winner goes to the rest
    await pg.query(`UPDATE ${schema}.campaigns SET ab_due_at = now() - interval '1 second' WHERE id = $1`, [campaign.id]);
    await eventually(async () => copies(campaign.id).size >= TEST_SIZE + 100, 'a fifth of the rest', 2000);
    await replicas.kill(child);
    expect(copies(campaign.id).size).toBeLessThan(CONTACTS);
    expect((await state(campaign.id)).ab_phase).toBe('winner');
    const [{ now: restartedAt }] = (await pg.query<{ now: Date }>('SELECT now()')).rows;
    child = await replicas.start(port, database);
    await eventually(async () => (await state(campaign.id)).status === 'SENT', 'the campaign to be SENT after the restart', 2000);
    const stats = (await call('GET', `/campaigns/${campaign.id}/stats`, undefined, key)).body;
    expect(stats).toMatchObject({ status: 'SENT', recipients: CONTACTS, sent: CONTACTS });
    expect(stats.abTest).toMatchObject({ testSize: TEST_SIZE, winner: { variant: 'A', by: 'metric', trigger: 'wait', tie: true }, rest: { recipients: CONTACTS - TEST_SIZE } });
    // stopped gracefully: the mails it had in flight are ended and answered first
    await replicas.kill(child, 'SIGTERM');

    const all = copies(campaign.id);
    expect([...all.entries()].filter(([, s]) => s.length !== 1)).toEqual([]);
    const lost = await undeliveredMails(pg, schema, 'campaign_id = $1', [campaign.id], (to) => all.has(to));
    expectOnlyTheKillWindowLost(lost, restartedAt, LANES);
    expect(all.size + lost.length).toBe(CONTACTS);
    // nobody opened anything: a tie, won by the first variant
    const rest = [...all.entries()].filter(([to]) => !test.has(to));
    expect(rest).toHaveLength(CONTACTS - TEST_SIZE - lost.length);
    expect(rest.every(([, s]) => s[0] === 'Subject A')).toBe(true);
    expect(lost.every((m) => m.subject === 'Subject A')).toBe(true);
  }, 300_000);
});
