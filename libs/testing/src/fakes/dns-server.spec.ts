import { Resolver } from 'node:dns/promises';
import { startFakeDnsServer, type FakeDnsServer } from './dns-server';

describe('fake DNS server', () => {
  let dns: FakeDnsServer;
  let resolver: Resolver;
  beforeEach(async () => {
    dns = await startFakeDnsServer({
      'example.com': {
        A: ['192.0.2.1', '192.0.2.2'],
        AAAA: ['2001:db8::1'],
        MX: [
          { priority: 20, exchange: 'backup.example.com' },
          { priority: 10, exchange: 'mx.example.com' },
        ],
        TXT: ['v=spf1 -all', ['part one', 'part two'], 'y'.repeat(300)],
      },
      'nomx.example': { A: ['192.0.2.9'] },
      'www.example.com': { CNAME: 'example.com' },
    });
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.address]);
  });
  afterEach(() => dns.close());
  /** The MX records' two fields (Node 24's resolver adds `type`). */
  const mx = async (name: string) => (await resolver.resolveMx(name)).map(({ priority, exchange }) => ({ priority, exchange }));

  it('answers A, AAAA, MX, TXT and CNAME from the table', async () => {
    expect((await resolver.resolve4('example.com')).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(await resolver.resolve6('example.com')).toEqual(['2001:db8::1']);
    expect((await mx('EXAMPLE.com')).sort((a, b) => a.priority - b.priority)).toEqual([
      { priority: 10, exchange: 'mx.example.com' },
      { priority: 20, exchange: 'backup.example.com' },
    ]);
    const txt = await resolver.resolveTxt('example.com');
    expect(txt).toEqual(expect.arrayContaining([['v=spf1 -all'], ['part one', 'part two'], ['y'.repeat(255), 'y'.repeat(45)]]));
    expect(await resolver.resolveCname('www.example.com')).toEqual(['example.com']);
    expect(dns.queries).toEqual(expect.arrayContaining([{ name: 'example.com', type: 'MX' }]));
  });

  it('answers NODATA, NXDOMAIN and SERVFAIL', async () => {
    await expect(resolver.resolveMx('nomx.example')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolveMx('missing.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    dns.servfail('broken.example');
    await expect(resolver.resolveMx('broken.example')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    dns.set('missing.example', { MX: [{ priority: 5, exchange: 'mx.missing.example' }] });
    expect(await mx('missing.example')).toEqual([{ priority: 5, exchange: 'mx.missing.example' }]);
    dns.remove('missing.example');
    await expect(resolver.resolveMx('missing.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('leaves silenced names (or every name) unanswered, as a dead resolver does', async () => {
    dns.silence('quiet.example');
    await expect(resolver.resolveMx('quiet.example')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(await resolver.resolveMx('EXAMPLE.com')).toHaveLength(2);
    dns.set('quiet.example', { MX: [{ priority: 1, exchange: 'mx.quiet.example' }] });
    expect(await mx('quiet.example')).toEqual([{ priority: 1, exchange: 'mx.quiet.example' }]);
    dns.silence('*');
    await expect(resolver.resolveMx('example.com')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });
});
