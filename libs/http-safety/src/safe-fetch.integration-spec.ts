import { AddressInfo } from 'node:net';
import http from 'node:http';
import { HttpSafetyError } from './errors';
import { LookupFn } from './lookup';
import { SafeHttpClient, safeFetch } from './safe-fetch';

/** A local server on 127.0.0.1 with a few behaviours chosen by path. */
function startServer(): Promise<{ server: http.Server; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url} host=${req.headers.host} auth=${req.headers.authorization ?? '-'}`);
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/hello':
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ hello: 'world', host: req.headers.host }));
        return;
      case '/echo': {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => res.end(`${req.method}:${Buffer.concat(chunks).toString()}`));
        return;
      }
      case '/redirect':
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/hello' });
        res.end();
        return;
      case '/loop':
        res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}` });
        res.end();
        return;
      case '/big': // 64 KiB without content-length, in chunks
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        for (let i = 0; i < 16; i++) res.write(Buffer.alloc(4096, 97));
        res.end();
        return;
      case '/big-declared':
        res.writeHead(200, { 'content-length': String(1024 * 1024) });
        res.end(Buffer.alloc(1024 * 1024));
        return;
      case '/slow-headers':
        setTimeout(() => res.end('late'), 2000).unref();
        return;
      case '/slow-body':
        res.writeHead(200);
        res.write('first');
        setTimeout(() => res.end('second'), 2000).unref();
        return;
      default:
        res.writeHead(404);
        res.end('not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, hits })),
  );
}

/** DNS that answers as told (the "public" name resolving to loopback models a rebinding attack). */
const fakeDns =
  (table: Record<string, string[]>, calls: string[] = []): LookupFn =>
  async (host) => {
    calls.push(host);
    const list = table[host];
    if (!list) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('safeFetch against a local server', () => {
  let server: http.Server;
  let port: number;
  let hits: string[];
  let base: string;

  beforeAll(async () => {
    ({ server, port, hits } = await startServer());
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => hits.splice(0));

  it('refuses a loopback URL by default without sending anything', async () => {
    await expect(safeFetch(`${base}/hello`)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    expect(hits).toEqual([]);
  });

  it('reaches it with allowPrivate', async () => {
    const res = await safeFetch(`${base}/hello`, {}, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json()).toEqual({ hello: 'world', host: `127.0.0.1:${port}` });
  });

  it('refuses at connection time a public-looking name that resolves to loopback (rebinding)', async () => {
    const calls: string[] = [];
    const lookup = fakeDns({ 'hooks.example.com': ['127.0.0.1'] }, calls);
    const err = await safeFetch(`http://hooks.example.com:${port}/hello`, {}, { lookup }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpSafetyError);
    expect(err).toMatchObject({ code: 'BLOCKED_ADDRESS', message: expect.stringContaining('127.0.0.1') });
    expect(calls).toEqual(['hooks.example.com']);
    expect(hits).toEqual([]);
  });

  it('refuses when any of the resolved addresses is private', async () => {
    const lookup = fakeDns({ 'mixed.example.com': ['93.184.216.34', '127.0.0.1'] });
    await expect(safeFetch(`http://mixed.example.com:${port}/hello`, {}, { lookup })).rejects.toMatchObject({
      code: 'BLOCKED_ADDRESS',
    });
    expect(hits).toEqual([]);
  });

  it('connects to the vetted address and keeps the original Host header', async () => {
    const lookup = fakeDns({ 'intranet.example.com': ['127.0.0.1'] });
    const res = await safeFetch(`http://intranet.example.com:${port}/hello`, {}, { lookup, allowPrivate: true });
    expect(res.json()).toEqual({ hello: 'world', host: `intranet.example.com:${port}` });
  });

  it('resolves again for every new connection, so a changed DNS answer is caught', async () => {
    let answer = '127.0.0.1';
    const lookup: LookupFn = async () => [{ address: answer, family: 4 }];
    const client = new SafeHttpClient({ lookup, allowPrivate: false });
    try {
      await expect(client.fetch(`http://flip.example.com:${port}/hello`)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
      answer = '10.9.9.9';
      await expect(client.fetch(`http://flip2.example.com:${port}/hello`)).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
    } finally {
      await client.close();
    }
    expect(hits).toEqual([]);
  });

  it('sends method, headers and body', async () => {
    const res = await safeFetch(
      `${base}/echo`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'payload' },
      { allowPrivate: true },
    );
    expect(res.text()).toBe('POST:payload');
  });

  it('follows redirects and reports them', async () => {
    const res = await safeFetch(`${base}/redirect?to=/hello`, {}, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${base}/hello`);
    expect(res.redirects).toEqual([`${base}/redirect?to=/hello`]);
  });

  it('turns a POST into a GET on 303 and keeps it on 307', async () => {
    const init = { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } };
    const r303 = await safeFetch(`${base}/redirect?status=303&to=/echo`, init, { allowPrivate: true });
    expect(r303.text()).toBe('GET:');
    const r307 = await safeFetch(`${base}/redirect?status=307&to=/echo`, init, { allowPrivate: true });
    expect(r307.text()).toBe('POST:x');
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const other = `http://localhost:${port}/hello`;
    await safeFetch(`${base}/redirect?to=${encodeURIComponent(other)}`, { headers: { Authorization: 'Bearer t' } }, { allowPrivate: true });
    expect(hits).toEqual([
      expect.stringContaining('auth=Bearer t'),
      expect.stringMatching(/^GET \/hello host=localhost:\d+ auth=-$/),
    ]);
  });

  it('refuses a redirect to a private address even when the first hop was allowed', async () => {
    // The first hop is "public" (fake DNS to a loopback server we allow only for that name), the
    // redirect points at the metadata address, which no option allows.
    const res = safeFetch(
      `${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
      {},
      { allowPrivate: true },
    );
    await expect(res).rejects.toMatchObject({ code: 'BLOCKED_ADDRESS' });
  });

  it('resolves and checks every redirect hop at connection time', async () => {
    // The first hop is allowed (loopback under allowPrivate); the redirect names a host whose DNS
    // answer is a metadata address, which the connector refuses whatever the options say.
    const calls: string[] = [];
    const lookup = fakeDns({ 'metadata.example.com': ['169.254.169.254'] }, calls);
    const to = encodeURIComponent('http://metadata.example.com/latest/meta-data/');
    await expect(safeFetch(`${base}/redirect?to=${to}`, {}, { lookup, allowPrivate: true })).rejects.toMatchObject({
      code: 'BLOCKED_ADDRESS',
      message: expect.stringContaining('169.254.169.254'),
    });
    expect(calls).toEqual(['metadata.example.com']);
    expect(hits).toHaveLength(1);
  });

  it('refuses a redirect to http when httpsOnly', async () => {
    const client = new SafeHttpClient({ allowPrivate: true, httpsOnly: true });
    try {
      await expect(client.fetch(`${base}/hello`)).rejects.toMatchObject({ code: 'INVALID_URL' });
    } finally {
      await client.close();
    }
  });

  it('stops after maxRedirects', async () => {
    await expect(safeFetch(`${base}/loop`, {}, { allowPrivate: true })).rejects.toMatchObject({
      code: 'TOO_MANY_REDIRECTS',
    });
    expect(hits).toHaveLength(6);
    await expect(safeFetch(`${base}/loop`, {}, { allowPrivate: true, maxRedirects: 1 })).rejects.toMatchObject({
      code: 'TOO_MANY_REDIRECTS',
    });
  });

  it('returns the redirect itself with redirect: manual', async () => {
    const res = await safeFetch(`${base}/redirect?to=/hello`, {}, { allowPrivate: true, redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/hello');
  });

  it('aborts a body larger than maxBytes, declared or streamed', async () => {
    await expect(safeFetch(`${base}/big`, {}, { allowPrivate: true, maxBytes: 10_000 })).rejects.toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
    });
    await expect(safeFetch(`${base}/big-declared`, {}, { allowPrivate: true, maxBytes: 10_000 })).rejects.toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
    });
    const ok = await safeFetch(`${base}/big`, {}, { allowPrivate: true, maxBytes: 64 * 1024 });
    expect(ok.body.length).toBe(64 * 1024);
  });

  it('times out waiting for headers, for the body and overall', async () => {
    await expect(safeFetch(`${base}/slow-headers`, {}, { allowPrivate: true, headersTimeoutMs: 100 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    await expect(safeFetch(`${base}/slow-body`, {}, { allowPrivate: true, bodyTimeoutMs: 100 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    await expect(safeFetch(`${base}/slow-headers`, {}, { allowPrivate: true, timeoutMs: 100 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
  });

  it('reports a refused connection as NETWORK_ERROR', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(safeFetch(`http://127.0.0.1:${closedPort}/`, {}, { allowPrivate: true })).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
    });
  });

  it('lets the caller abort', async () => {
    const controller = new AbortController();
    const pending = safeFetch(`${base}/slow-headers`, { signal: controller.signal }, { allowPrivate: true });
    controller.abort();
    await expect(pending).rejects.not.toBeInstanceOf(HttpSafetyError);
  });
});
