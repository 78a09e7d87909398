import { HttpSafetyError } from './errors';
import { LookupFn } from './lookup';
import { assertPublicUrl, assertResolvesPublic } from './url';

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as HttpSafetyError).code;
  }
};

const fakeDns =
  (answers: Record<string, string[]>): LookupFn =>
  async (host) => {
    const list = answers[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('assertPublicUrl', () => {
  it('returns the parsed URL for public http(s) URLs', () => {
    expect(assertPublicUrl('https://hooks.example.com/in?x=1').hostname).toBe('hooks.example.com');
    expect(assertPublicUrl('http://example.com').protocol).toBe('http:');
    expect(assertPublicUrl('https://8.8.8.8/').hostname).toBe('8.8.8.8');
    expect(assertPublicUrl('https://[2606:4700:4700::1111]/').hostname).toBe('[2606:4700:4700::1111]');
  });

  it.each([
    ['not a url', 'INVALID_URL'],
    ['/relative/path', 'INVALID_URL'],
    ['ftp://example.com/file', 'INVALID_URL'],
    ['file:///etc/passwd', 'INVALID_URL'],
    ['javascript:alert(1)', 'INVALID_URL'],
    ['gopher://example.com', 'INVALID_URL'],
    ['https://user:pass@example.com/', 'INVALID_URL'],
    [`https://example.com/${'a'.repeat(2100)}`, 'INVALID_URL'],
    ['http://127.0.0.1/', 'BLOCKED_ADDRESS'],
    ['http://2130706433/', 'BLOCKED_ADDRESS'],
    ['http://0x7f.1/', 'BLOCKED_ADDRESS'],
    ['http://0/', 'BLOCKED_ADDRESS'],
    ['http://0.0.0.0:3000/', 'BLOCKED_ADDRESS'],
    ['http://0177.0.0.1/', 'BLOCKED_ADDRESS'],
    ['http://017700000001/', 'BLOCKED_ADDRESS'],
    ['http://127.1/', 'BLOCKED_ADDRESS'],
    ['http://0xA9FEA9FE/', 'BLOCKED_ADDRESS'],
    ['http://[::]/', 'BLOCKED_ADDRESS'],
    ['http://[::ffff:a9fe:a9fe]/', 'BLOCKED_ADDRESS'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', 'BLOCKED_ADDRESS'],
    ['http://[::1]:8080/', 'BLOCKED_ADDRESS'],
    ['http://[::ffff:127.0.0.1]/', 'BLOCKED_ADDRESS'],
    ['http://169.254.169.254/latest/meta-data/', 'BLOCKED_ADDRESS'],
    ['http://[fd00:ec2::254]/', 'BLOCKED_ADDRESS'],
    ['http://10.0.0.5/', 'BLOCKED_ADDRESS'],
    ['http://localhost:3000/', 'BLOCKED_ADDRESS'],
    ['http://api.localhost/', 'BLOCKED_ADDRESS'],
  ])('refuses %s with %s', (url, code) => {
    expect(codeOf(() => assertPublicUrl(url))).toBe(code);
  });

  it('refuses http when httpsOnly', () => {
    expect(codeOf(() => assertPublicUrl('http://example.com/', { httpsOnly: true }))).toBe('INVALID_URL');
    expect(() => assertPublicUrl('http://example.com/', { httpsOnly: true })).toThrow(/must use https/);
    expect(assertPublicUrl('https://example.com/', { httpsOnly: true }).protocol).toBe('https:');
  });

  it('allows private literals and localhost with allowPrivate, never metadata', () => {
    expect(assertPublicUrl('http://127.0.0.1:8080/', { allowPrivate: true }).port).toBe('8080');
    expect(assertPublicUrl('http://localhost/', { allowPrivate: true }).hostname).toBe('localhost');
    expect(codeOf(() => assertPublicUrl('http://169.254.169.254/', { allowPrivate: true }))).toBe('BLOCKED_ADDRESS');
    expect(codeOf(() => assertPublicUrl('http://2852039166/', { allowPrivate: true }))).toBe('BLOCKED_ADDRESS');
    expect(codeOf(() => assertPublicUrl('http://[::ffff:169.254.169.254]/', { allowPrivate: true }))).toBe('BLOCKED_ADDRESS');
  });

  it('names the address class in the message', () => {
    expect(() => assertPublicUrl('http://192.168.1.1/')).toThrow(/192\.168\.1\.1, a private address/);
  });
});

describe('assertResolvesPublic', () => {
  const lookup = fakeDns({
    'public.test': ['93.184.216.34', '2606:2800:220:1::1'],
    'rebind.test': ['93.184.216.34', '127.0.0.1'],
    'internal.test': ['10.1.2.3'],
    'meta.test': ['169.254.169.254'],
    'v6local.test': ['fd12::1'],
  });

  it('returns the addresses when every one is public', async () => {
    const { url, addresses } = await assertResolvesPublic('https://public.test/x', { lookup });
    expect(url.pathname).toBe('/x');
    expect(addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
  });

  it.each(['rebind.test', 'internal.test', 'meta.test', 'v6local.test'])('refuses %s', async (host) => {
    await expect(assertResolvesPublic(`https://${host}/`, { lookup })).rejects.toMatchObject({
      code: 'BLOCKED_ADDRESS',
    });
  });

  it('allows a private resolution with allowPrivate', async () => {
    await expect(assertResolvesPublic('http://internal.test/', { lookup, allowPrivate: true })).resolves.toMatchObject({
      addresses: [{ address: '10.1.2.3', family: 4 }],
    });
  });

  it('reports an unknown host as DNS_ERROR', async () => {
    await expect(assertResolvesPublic('https://missing.test/', { lookup })).rejects.toMatchObject({
      code: 'DNS_ERROR',
      message: expect.stringContaining('ENOTFOUND'),
    });
  });

  it('gives up on a resolver that does not answer', async () => {
    const hanging: LookupFn = () => new Promise(() => undefined);
    await expect(assertResolvesPublic('https://slow.test/', { lookup: hanging, dnsTimeoutMs: 20 })).rejects.toMatchObject({
      code: 'DNS_ERROR',
    });
  });
});
