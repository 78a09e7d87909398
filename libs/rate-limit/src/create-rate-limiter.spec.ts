import { createServer, type Server, type Socket } from 'node:net';
import { createRateLimiter } from './create-rate-limiter';
import { FallbackRateLimiter } from './fallback-rate-limiter';
import { MemoryRateLimiter } from './memory-rate-limiter';

describe('createRateLimiter', () => {
  it('keeps counters in memory without REDIS_URL', async () => {
    const l = createRateLimiter({ redisUrl: undefined, keyPrefix: 'x:' });
    expect(l).toBeInstanceOf(MemoryRateLimiter);
    await expect(l.ping()).resolves.toBeUndefined();
    await l.close();
  });

  describe('with a Redis that accepts the connection but never answers (hung server, half-open socket)', () => {
    let server: Server;
    const sockets = new Set<Socket>();
    let port: number;

    beforeAll(async () => {
      server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });

    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    it('limits in memory after the timeout instead of holding the request', async () => {
      const fallbacks: string[] = [];
      const l = createRateLimiter({
        redisUrl: `redis://127.0.0.1:${port}`,
        keyPrefix: 'hung:',
        redisTimeoutMs: 50,
        onFallback: (err) => fallbacks.push(err.message),
      });
      try {
        expect(l).toBeInstanceOf(FallbackRateLimiter);
        const allowed = [];
        for (let i = 0; i < 3; i++) allowed.push((await l.hit('k', 2, 60_000)).allowed);
        expect(allowed).toEqual([true, true, false]);
        expect((await l.hitAll([{ key: 'a', limit: 1 }], 60_000))[0].allowed).toBe(true);
        expect(fallbacks).toEqual(Array(4).fill('Redis did not answer within 50 ms'));
      } finally {
        await l.close();
      }
    });
  });
});
