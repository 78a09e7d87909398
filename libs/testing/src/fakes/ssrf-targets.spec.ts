import { promises as dnsPromises } from 'node:dns';
import { startSsrfTargets } from './ssrf-targets';

describe('startSsrfTargets', () => {
  it('redirects to ?to=, answers the rest, records every path, and resolves its names until closed', async () => {
    const real = dnsPromises.lookup;
    const targets = await startSsrfTargets({ loopbackName: 'docs.example.com', redirectStatus: 302, answer: (path) => ({ status: path === '/robots.txt' ? 404 : 200, body: 'ok' }) });
    try {
      const moved = await fetch(targets.redirectTo('http://meta.example.com/x', '127.0.0.1'), { redirect: 'manual' });
      expect([moved.status, moved.headers.get('location')]).toEqual([302, 'http://meta.example.com/x']);
      const page = await fetch(`${targets.origin}/page`);
      expect([page.status, await page.text()]).toEqual([200, 'ok']);
      expect((await fetch(`${targets.origin}/robots.txt`)).status).toBe(404);
      expect(targets.hits).toEqual([`/r?to=${encodeURIComponent('http://meta.example.com/x')}`, '/page', '/robots.txt']);

      expect(await dnsPromises.lookup(targets.names.loopback)).toEqual({ address: '127.0.0.1', family: 4 });
      expect(await dnsPromises.lookup(targets.names.metadata)).toEqual({ address: '169.254.169.254', family: 4 });
      expect(targets.dns.queries.map((q) => q.name)).toEqual(expect.arrayContaining(['docs.example.com', 'meta.example.com']));
      expect(targets.privateUrls('/f', 'https')).toEqual([
        `https://127.0.0.1:${targets.port}/f`,
        'https://10.0.0.7/f',
        'https://172.16.0.1/f',
        'https://192.168.1.10/f',
        'https://169.254.169.254/latest/meta-data/',
        `https://[::ffff:127.0.0.1]:${targets.port}/f`,
      ]);
    } finally {
      await targets.close();
    }
    expect(dnsPromises.lookup).toBe(real);
    await expect(fetch(`${targets.origin}/page`)).rejects.toThrow();
  });

  it('answers 204 and resolves hooks.example.com by default', async () => {
    const targets = await startSsrfTargets();
    try {
      expect((await fetch(`${targets.origin}/hook`)).status).toBe(204);
      expect(targets.names.loopback).toBe('hooks.example.com');
      expect(targets.redirectTo('http://a.test/')).toBe(`http://hooks.example.com:${targets.port}/r?to=${encodeURIComponent('http://a.test/')}`);
    } finally {
      await targets.close();
    }
  });
});
