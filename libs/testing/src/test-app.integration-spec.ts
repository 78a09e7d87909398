import { Controller, Get, Inject, Module } from '@nestjs/common';
import { BaseConfig, type ServiceDefinition } from '@platform/platform';
import { createTestApp } from './test-app';

@Controller('whoami')
class WhoAmIController {
  constructor(@Inject(BaseConfig) private readonly config: BaseConfig) {}

  @Get()
  get() {
    return { env: this.config.NODE_ENV, log: this.config.LOG_LEVEL, amqp: this.config.AMQP_URL ?? null, extra: this.config.DATA_DIR.length > 0 };
  }
}

@Module({ controllers: [WhoAmIController] })
class WhoAmIModule {}

const noDatabase: ServiceDefinition = { name: 'whoami-api', port: 0, config: BaseConfig, module: () => ({ module: WhoAmIModule }) };

describe('createTestApp', () => {
  it('boots a definition without a database in test mode, silent, on the in-process bus', async () => {
    const t = await createTestApp(noDatabase);
    try {
      expect(t.database).toBeUndefined();
      await t.http.get('/healthz').expect(200, { status: 'ok' });
      const res = await t.http.get('/whoami').expect(200);
      expect(res.body).toEqual({ env: 'test', log: process.env.TEST_LOG_LEVEL || 'silent', amqp: null, extra: true });
    } finally {
      await t.close();
    }
  });

  it('lets env override the defaults', async () => {
    const t = await createTestApp(noDatabase, { AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672' });
    try {
      const res = await t.http.get('/whoami').expect(200);
      expect(res.body.amqp).toBe('amqp://guest:guest@127.0.0.1:5672');
    } finally {
      await t.close();
    }
  });

  it('reports an invalid environment instead of booting', async () => {
    await expect(createTestApp(noDatabase, { LOG_LEVEL: 'loud' })).rejects.toThrow(/LOG_LEVEL/);
  });
});
