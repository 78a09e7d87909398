import { createServer } from 'node:http';
import { inParallel, listenOnLoopback, sendRequest } from './loopback';

describe('listenOnLoopback and sendRequest', () => {
  it('serve on a free loopback port and send JSON over a kept-alive connection', async () => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ method: req.method, url: req.url, type: req.headers['content-type'] ?? null, extra: req.headers['x-extra'] ?? null, body: Buffer.concat(chunks).toString() }));
      });
    });
    const listening = await listenOnLoopback(server);
    try {
      expect(listening.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const posted = await sendRequest(`${listening.url}/x?y=1`, 'POST', '{"a":1}', { 'x-extra': 'yes' });
      expect(posted.status).toBe(201);
      expect(JSON.parse(posted.body)).toEqual({ method: 'POST', url: '/x?y=1', type: 'application/json', extra: 'yes', body: '{"a":1}' });
      const got = await sendRequest(listening.url, 'GET');
      expect(JSON.parse(got.body)).toMatchObject({ method: 'GET', type: null, body: '' });
    } finally {
      await listening.close();
    }
    expect(server.listening).toBe(false);
  });

  it('rejects when nothing listens', async () => {
    const listening = await listenOnLoopback(createServer());
    await listening.close();
    await expect(sendRequest(listening.url, 'GET')).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('inParallel', () => {
  it('runs every task once with at most `concurrency` at a time and answers tasks per second', async () => {
    const seen: number[] = [];
    let running = 0;
    let most = 0;
    const rate = await inParallel(20, 3, async (i) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 1));
      seen.push(i);
      running--;
    });
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(3);
    expect(rate).toBeGreaterThan(0);
    expect(Number.isFinite(rate)).toBe(true);
  });

  it('starts no more callers than tasks', async () => {
    let calls = 0;
    await inParallel(2, 10, async () => {
      calls++;
    });
    expect(calls).toBe(2);
  });
});
