import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink } from '@platform/testing';
import { bearer, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { verifyDkim } from '../../test/dkim';
import { publish } from '../../test/marketing';
import { DomainVerificationWorker } from './domain-verification.worker';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';
import { Database } from '@platform/database';

interface RecordBody {
  type: string;
  name: string;
  value: string;
  priority?: number;
  purpose: string;
  required: boolean;
}

describe('domains (e2e): DNS records, verification, DKIM', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let project: TestProject;
  const sk = () => bearer(project.secretKey);

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    t = await startEmailApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '1000', DOMAIN_CHECK_SECONDS: '1', SMTP_URL: smtp.url, SPF_INCLUDE: '_spf.platform.test', RETURN_PATH_MX: 'feedback.platform.test' });
    ({ project } = await newProject(t, 'Domains'));
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
  });

  it('answers a new domain as pending with the records to publish', async () => {
    const res = await t.http.post('/domains').set(sk()).send({ domain: 'News.Acme.test.' }).expect(201);
    expect(res.body).toMatchObject({ id: expect.any(String), domain: 'news.acme.test', status: 'pending' });
    const records: RecordBody[] = res.body.records;
    const dkim = records.find((r) => r.purpose === 'DKIM')!;
    expect(dkim).toMatchObject({ type: 'TXT', name: expect.stringMatching(/^pm[0-9a-f]{8}\._domainkey\.news\.acme\.test$/), value: expect.stringMatching(/^v=DKIM1; k=rsa; p=MII/), required: true });
    expect(records.filter((r) => r.purpose !== 'DKIM')).toEqual([
      { type: 'TXT', name: 'news.acme.test', value: 'v=spf1 include:_spf.platform.test ~all', purpose: 'SPF', required: true },
      { type: 'MX', name: 'bounce.news.acme.test', value: 'feedback.platform.test', priority: 10, purpose: 'RETURN_PATH', required: true },
      { type: 'TXT', name: 'bounce.news.acme.test', value: 'v=spf1 include:_spf.platform.test ~all', purpose: 'RETURN_PATH', required: true },
      { type: 'TXT', name: '_dmarc.news.acme.test', value: 'v=DMARC1; p=none; rua=mailto:dmarc@news.acme.test', purpose: 'DMARC', required: false },
      { type: 'MX', name: 'news.acme.test', value: 'feedback.platform.test', priority: 10, purpose: 'INBOUND', required: false },
    ]);
    // the private key is stored encrypted, never in the clear
    const db = t.app.get(DomainsRepository);
    const row = await db.findById(project.id, res.body.id);
    expect(row!.dkim_private_key).toMatch(/^v1\./);
    expect(row!.dkim_private_key).not.toContain('PRIVATE KEY');
    await t.http.post('/domains').set(sk()).send({ domain: 'news.acme.test' }).expect(409);
    await t.http.post('/domains').set(sk()).send({ domain: 'not a domain' }).expect(422);
  });

  it('pending → verified by GET /verify once every required record resolves to its value; a wrong record keeps it pending', async () => {
    const res = await t.http.post('/domains').set(sk()).send({ domain: 'forced.acme.test' }).expect(201);
    const before = await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200);
    expect(before.body.status).toBe('pending');
    expect(before.body.checks).toHaveLength(4);
    expect(before.body.checks.every((c: { ok: boolean }) => !c.ok)).toBe(true);
    const records: RecordBody[] = res.body.records;
    // DKIM with another key: still pending
    publish(dns, records.map((r) => (r.purpose === 'DKIM' ? { ...r, value: 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong' } : r)));
    const wrong = await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200);
    expect(wrong.body.status).toBe('pending');
    expect(wrong.body.checks.find((c: { purpose: string }) => c.purpose === 'DKIM')).toMatchObject({ ok: false, detail: expect.stringContaining('without the DKIM key') });
    // the DKIM TXT split into 255-byte strings, as DNS hosts publish long keys
    const dkim = records.find((r) => r.purpose === 'DKIM')!;
    dns.set(dkim.name, { TXT: [[dkim.value.slice(0, 200), dkim.value.slice(200)]] });
    const ok = await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200);
    expect(ok.body).toMatchObject({ status: 'verified', verifiedAt: expect.any(String) });
    expect(ok.body.checks.every((c: { ok: boolean }) => c.ok)).toBe(true);
  });

  it('the background check verifies a pending domain without being asked', async () => {
    const res = await t.http.post('/domains').set(sk()).send({ domain: 'background.acme.test' }).expect(201);
    publish(dns, res.body.records);
    await eventually(async () => {
      const list = await t.http.get(`/domains/project/${project.id}`).set(sk()).expect(200);
      return list.body.find((d: { id: string; status: string }) => d.id === res.body.id && d.status === 'verified');
    }, 'the background check to verify the domain', 600);
  });

  it('two claims at once never take the same due domain (several replicas)', async () => {
    // this replica's own loop stops, so that the two claims below are the only claimers
    await t.app.get(DomainVerificationWorker).onModuleDestroy();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await t.http.post('/domains').set(sk()).send({ domain: `claim${i}.acme.test` }).expect(201)).body.id);
    const repo = t.app.get(DomainsRepository);
    const [a, b] = await Promise.all([repo.claimDue(4, 60), repo.claimDue(4, 60)]);
    const seen = [...a, ...b].map((r) => r.id);
    expect(new Set(seen).size).toBe(seen.length);
    const more = await Promise.all([repo.claimDue(20, 60), repo.claimDue(20, 60)]);
    const all = [...seen, ...more.flat().map((r) => r.id)];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining(ids));
    // claimed rows are leased: nobody takes them again before the lease ends
    expect(await repo.claimDue(20, 60)).toEqual([]);
  });

  it('every mail from a verified domain is DKIM-signed with its key; the signature verifies against the published key', async () => {
    const res = await t.http.post('/domains').set(sk()).send({ domain: 'signed.acme.test' }).expect(201);
    publish(dns, res.body.records);
    await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200).expect((r) => expect(r.body.status).toBe('verified'));
    const template = await t.http.post('/templates').set(sk()).send({ name: 'Welcome', subject: 'Hi {{name ?? "there"}}', body: '<p>Plan {{data.plan}} for {{email}}</p><a href="{{manageUrl}}">prefs</a>', from: 'hello@signed.acme.test' }).expect(201);
    smtp.reset();
    const sent = await t.http.post('/v1/send').set(sk()).send({ to: 'reader@example.com', template: template.body.id, data: { plan: 'gold' } }).expect(200);
    expect(sent.body.data.emails).toHaveLength(1);
    const [message] = await smtp.waitForMessages(1);
    expect(message.subject).toBe('Hi there');
    expect(message.from).toMatch(/^bounces\+eml_[0-9a-z]{20}@bounce\.signed\.acme\.test$/);
    const publicKey = /p=([^;]+)$/.exec(res.body.records.find((r: RecordBody) => r.purpose === 'DKIM').value)![1];
    const tags = verifyDkim(message.raw, publicKey);
    expect(tags).toMatchObject({ d: 'signed.acme.test', s: res.body.records.find((r: RecordBody) => r.purpose === 'DKIM').name.split('.')[0] });
    // a tampered body no longer verifies
    expect(() => verifyDkim(message.raw.replace('gold', 'g0ld'), publicKey)).toThrow(/body hash/);
  });

  it('/v1/send: a from on an unknown or pending domain is 403; without from the operator\'s sender is used, unsigned', async () => {
    smtp.reset();
    const unknown = await t.http.post('/v1/send').set(sk()).send({ to: 'x@example.com', subject: 's', body: 'b', from: 'a@unverified.test' }).expect(403);
    expect(unknown.body).toMatchObject({ success: false, error: { code: 'SENDER_DOMAIN_NOT_VERIFIED', statusCode: 403, suggestion: expect.stringContaining('POST /domains') } });
    const pending = await t.http.post('/domains').set(sk()).send({ domain: 'pending.acme.test' }).expect(201);
    const refused = await t.http.post('/v1/send').set(sk()).send({ to: 'x@example.com', subject: 's', body: 'b', from: 'a@pending.acme.test' }).expect(403);
    expect(refused.body.error).toMatchObject({ code: 'SENDER_DOMAIN_NOT_VERIFIED', suggestion: expect.stringContaining(`/domains/${pending.body.id}/verify`) });
    await t.http.post('/v1/send').set(sk()).send({ to: 'x@example.com', subject: 's', body: 'b' }).expect(200);
    const [message] = await smtp.waitForMessages(1);
    expect(message.headers['from']).toBe(t.config.EMAIL_FROM);
    expect(message.headers['dkim-signature']).toBeUndefined();
  });

  it('a verified domain whose records vanished goes degraded at its re-check; sends from it are refused until they are back', async () => {
    const res = await t.http.post('/domains').set(sk()).send({ domain: 'fading.acme.test' }).expect(201);
    publish(dns, res.body.records);
    await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200).expect((r) => expect(r.body.status).toBe('verified'));
    const repo = t.app.get(DomainsRepository);
    const db = t.app.get(Database);
    // the next check of a verified domain is a day away (DOMAIN_RECHECK_SECONDS)
    const row = await db.one<{ due_in: number }>(`SELECT extract(epoch FROM next_check_at - now())::int AS due_in FROM ${db.table('domains')} WHERE id = $1`, [res.body.id]);
    expect(row!.due_in).toBeGreaterThan(86_000);
    const dkim = res.body.records.find((r: RecordBody) => r.purpose === 'DKIM');
    dns.remove(dkim.name);
    // once due, the background check claims it like a pending one and finds the record gone
    await db.affected(`UPDATE ${db.table('domains')} SET next_check_at = now() WHERE id = $1`, [res.body.id]);
    const due = (await repo.claimDue(50, 60)).find((d) => d.id === res.body.id);
    expect(due).toBeDefined();
    expect((await t.app.get(DomainsService).check(due!)).status).toBe('degraded');
    const degraded = await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200);
    expect(degraded.body.status).toBe('degraded');
    const refused = await t.http.post('/v1/send').set(sk()).send({ to: 'x@example.com', subject: 's', body: 'b', from: 'a@fading.acme.test' }).expect(403);
    expect(refused.body.error).toMatchObject({ code: 'SENDER_DOMAIN_DEGRADED', message: expect.stringContaining(dkim.name) });
    publish(dns, [dkim]);
    await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200).expect((r) => expect(r.body.status).toBe('verified'));
    await t.http.post('/v1/send').set(sk()).send({ to: 'x@example.com', subject: 's', body: 'b', from: 'a@fading.acme.test' }).expect(200);
  });

  it('409 while a template uses the domain; 204 once nothing does', async () => {
    const res = await t.http.post('/domains').set(sk()).send({ domain: 'used.acme.test' }).expect(201);
    publish(dns, res.body.records);
    await t.http.get(`/domains/${res.body.id}/verify`).set(sk()).expect(200);
    const template = await t.http.post('/templates').set(sk()).send({ name: 'T', subject: 's', body: 'b', from: 'x@used.acme.test' }).expect(201);
    const conflict = await t.http.delete(`/domains/${res.body.id}`).set(sk()).expect(409);
    expect(conflict.body.error).toMatchObject({ code: 'DOMAIN_IN_USE', statusCode: 409 });
    await t.http.delete(`/templates/${template.body.id}`).set(sk()).expect(204);
    await t.http.delete(`/domains/${res.body.id}`).set(sk()).expect(204);
    await t.http.delete(`/domains/${res.body.id}`).set(sk()).expect(404);
  });

  it('isolates projects and refuses the public key', async () => {
    const other = await newProject(t, 'Other');
    const mine = await t.http.post('/domains').set(sk()).send({ domain: 'mine.acme.test' }).expect(201);
    await t.http.get(`/domains/${mine.body.id}/verify`).set(bearer(other.project.secretKey)).expect(404);
    await t.http.delete(`/domains/${mine.body.id}`).set(bearer(other.project.secretKey)).expect(404);
    await t.http.get(`/domains/project/${project.id}`).set(bearer(other.project.secretKey)).expect(404);
    await t.http.get(`/domains/project/${project.id}`).set(bearer(project.publicKey)).expect(401);
    const listed = await t.http.get(`/domains/project/${other.project.id}`).set(bearer(other.project.secretKey)).expect(200);
    expect(listed.body).toEqual([]);
  });
});

describe('domains (e2e): a DNS server that never answers', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    dns.silence('*');
    t = await startEmailApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  it('GET /verify still answers (within 10 s), pending with the timeouts as reasons', async () => {
    const { project } = await newProject(t, 'Silent');
    const res = await t.http.post('/domains').set(bearer(project.secretKey)).send({ domain: 'quiet.test' }).expect(201);
    const verify = await t.http.get(`/domains/${res.body.id}/verify`).set(bearer(project.secretKey)).timeout(10_000).expect(200);
    expect(verify.body.status).toBe('pending');
    expect(verify.body.checks.map((c: { detail: string }) => c.detail)).toEqual(Array(4).fill('no answer within 2000 ms'));
    expect(dns.queries.length).toBeGreaterThan(0);
  });
});
