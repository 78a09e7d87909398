import { startScriptedHttpServer, startSilentServer, type FaultyServer } from '@platform/testing';
import { safeFetch } from './safe-fetch';

/**
 * Outside servers that hang or fail (loopback fakes): a request ends within its timeouts, a 500 is
 * handed back with its status, and with `retries` an idempotent request is tried again after a
 * 503 (with backoff) but never after a timeout, and a POST never.
 */
describe('safeFetch against outside servers that misbehave', () => {
  const servers: FaultyServer[] = [];
  const allowPrivate = true;

  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  async function started<T extends FaultyServer>(server: Promise<T>): Promise<T> {
    const s = await server;
    servers.push(s);
    return s;
  }

  it('times out on a server that accepts the connection and never answers, without retrying', async () => {
    const silent = await started(startSilentServer());
    await expect(safeFetch(`${silent.url}/hook`, {}, { allowPrivate, headersTimeoutMs: 200, retries: 2, retryDelayMs: 10 })).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
    expect(silent.connections).toBe(1);
  });

  it('hands back a 500 with its status and body, and does not retry it', async () => {
    const failing = await started(startScriptedHttpServer(() => ({ status: 500, body: { error: 'boom' } })));
    const res = await safeFetch(`${failing.url}/x`, {}, { allowPrivate, retries: 2, retryDelayMs: 10 });
    expect(res).toMatchObject({ status: 500, ok: false, attempts: 1 });
    expect(res.json()).toEqual({ error: 'boom' });
    expect(failing.requests).toBe(1);
  });

  it('retries a GET after 503s with backoff and returns the answer that worked', async () => {
    const flaky = await started(startScriptedHttpServer((n) => (n <= 2 ? { status: 503 } : { status: 200, body: 'fine' })));
    const res = await safeFetch(`${flaky.url}/x`, {}, { allowPrivate, retries: 2, retryDelayMs: 10 });
    expect(res).toMatchObject({ status: 200, attempts: 3 });
    expect(res.text()).toBe('fine');
    expect(flaky.requests).toBe(3);
  });

  it('returns the last 503 once the retries are used up, and never retries a POST', async () => {
    const down = await started(startScriptedHttpServer(() => ({ status: 503, headers: { 'Retry-After': '0' } })));
    const get = await safeFetch(`${down.url}/x`, {}, { allowPrivate, retries: 1, retryDelayMs: 10 });
    expect(get).toMatchObject({ status: 503, attempts: 2 });
    const post = await safeFetch(`${down.url}/x`, { method: 'POST', body: '{}' }, { allowPrivate, retries: 3, retryDelayMs: 10 });
    expect(post).toMatchObject({ status: 503, attempts: 1 });
    expect(down.requests).toBe(3);
  });
});
