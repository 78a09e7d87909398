import { promises as dnsPromises } from 'node:dns';
import { fakeDnsLookup, routeSystemLookupTo } from './dns-lookup';
import { startFakeDnsServer, type FakeDnsServer } from './dns-server';

describe('name resolution through the fake DNS server', () => {
  let dns: FakeDnsServer;
  beforeAll(async () => {
    dns = await startFakeDnsServer({ 'both.test': { A: ['127.0.0.1'], AAAA: ['::1'] }, 'empty.test': {} });
  });
  afterAll(() => dns.close());

  it('answers every A and AAAA record; a name without any is ENOTFOUND', async () => {
    const lookup = fakeDnsLookup(dns);
    expect(await lookup('both.test')).toEqual([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
    await expect(lookup('empty.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(lookup('missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('routes dns.promises.lookup for the listed names only, until restored', async () => {
    const real = dnsPromises.lookup;
    const restore = routeSystemLookupTo(dns, ['both.test']);
    try {
      expect(await dnsPromises.lookup('both.test', { all: true })).toEqual([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
      expect(await dnsPromises.lookup('both.test')).toEqual({ address: '127.0.0.1', family: 4 });
      expect((await dnsPromises.lookup('127.0.0.1')).address).toBe('127.0.0.1');
    } finally {
      restore();
    }
    expect(dnsPromises.lookup).toBe(real);
  });
});
