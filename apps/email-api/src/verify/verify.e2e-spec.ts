import { startFakeDnsServer, type FakeDnsServer } from '@platform/testing';
import { bearer, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';

describe('POST /v1/verify (e2e, DNS through DNS_SERVERS)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let project: TestProject;

  beforeAll(async () => {
    dns = await startFakeDnsServer({
      'good.example': { MX: [{ priority: 20, exchange: 'mx2.good.example' }, { priority: 10, exchange: 'mx1.good.example' }] },
      'nomx.example': { A: ['192.0.2.10'] },
      'nullmx.example': { MX: [{ priority: 0, exchange: '' }] },
      'mailinator.com': { MX: [{ priority: 10, exchange: 'mail.mailinator.com' }] },
    });
    t = await startEmailApi({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '500' });
    ({ project } = await newProject(t));
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  const verify = (email: string) => t.http.post('/v1/verify').set(bearer(project.secretKey)).send({ email }).expect(200);

  it('accepts a well-formed address whose domain has MX records', async () => {
    const res = await verify('Someone@Good.example');
    expect(res.body).toEqual({
      success: true,
      data: {
        email: 'someone@good.example',
        valid: true,
        formatValid: true,
        domain: 'good.example',
        isDisposable: false,
        hasMxRecords: true,
        mxRecords: [
          { exchange: 'mx1.good.example', priority: 10 },
          { exchange: 'mx2.good.example', priority: 20 },
        ],
        suggestedEmail: null,
        reasons: [],
      },
    });
    expect(dns.queries).toContainEqual({ name: 'good.example', type: 'MX' });
  });

  it('reports missing MX, null MX, unknown domains and DNS failures', async () => {
    expect((await verify('a@nomx.example')).body.data).toMatchObject({ valid: false, hasMxRecords: false, reasons: ['Domain does not exist or has no MX records'] });
    expect((await verify('a@nullmx.example')).body.data).toMatchObject({ valid: false, hasMxRecords: false, reasons: ['Domain does not accept email (null MX record)'] });
    expect((await verify('a@unknown.example')).body.data).toMatchObject({ valid: false, reasons: ['Domain does not exist or has no MX records'] });
    dns.servfail('broken.example');
    expect((await verify('a@broken.example')).body.data.reasons[0]).toMatch(/MX lookup failed/);
  });

  it('flags disposable domains (subdomains too) and invalid formats', async () => {
    expect((await verify('x@mailinator.com')).body.data).toMatchObject({ valid: false, isDisposable: true, hasMxRecords: true, reasons: ['Disposable email domain'] });
    expect((await verify('x@eu.mailinator.com')).body.data.isDisposable).toBe(true);
    const bad = (await verify('not an email')).body.data;
    expect(bad).toMatchObject({ valid: false, formatValid: false, domain: null, reasons: ['Invalid email format'] });
  });

  it('suggests a fix for typos of common providers', async () => {
    const res = (await verify('jane@gnail.com')).body.data;
    expect(res).toMatchObject({ valid: false, suggestedEmail: 'jane@gmail.com' });
    expect(res.reasons).toEqual(['Possible typo detected: did you mean gmail.com?', 'Domain does not exist or has no MX records']);
  });

  it('needs a string body field', async () => {
    expect((await t.http.post('/v1/verify').set(bearer(project.secretKey)).send({}).expect(422)).body.error.errors[0].field).toBe('email');
  });
});
