import { HealthRegistry } from './health.registry';

describe('HealthRegistry', () => {
  it('is ok with no checks', async () => {
    await expect(new HealthRegistry().check()).resolves.toEqual({ status: 'ok', checks: {} });
  });

  it('reports each check and fails when one is down', async () => {
    const health = new HealthRegistry();
    health.register('database', async () => undefined);
    health.register('broker', async () => {
      throw new Error('connection refused');
    });
    await expect(health.check()).resolves.toEqual({
      status: 'error',
      checks: { database: { status: 'up' }, broker: { status: 'down', error: 'connection refused' } },
    });
  });

  it('counts a hung check as down after its timeout', async () => {
    const health = new HealthRegistry();
    health.register('engine', () => new Promise<void>(() => undefined), { timeoutMs: 20 });
    const report = await health.check();
    expect(report.status).toBe('error');
    expect(report.checks.engine).toEqual({ status: 'down', error: 'timed out after 20 ms' });
  });

  it('treats a synchronous throw as down and can unregister', async () => {
    const health = new HealthRegistry();
    health.register('redis', () => {
      throw new Error('no client');
    });
    expect((await health.check()).checks.redis.status).toBe('down');
    health.unregister('redis');
    expect(health.names()).toEqual([]);
  });
});
