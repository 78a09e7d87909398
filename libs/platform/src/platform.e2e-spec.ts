import { Body, Controller, Get, Injectable, Logger, Module, NotFoundException, Param, Post, type DynamicModule } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { EnvelopeErrorFilter } from '@platform/errors';
import { IsEmail, IsInt, Max, Min } from 'class-validator';
import request from 'supertest';
import { BaseConfig } from './config/base.config';
import { createServiceApp, provides } from './create-service-app';
import { HealthRegistry } from './health/health.registry';
import { MetricsService } from './metrics/metrics.service';
import type { ServiceDefinition } from './service-definition';
import { startService, type RunningService } from './start-service';

class CreateItemDto {
  @ApiProperty() @IsEmail() email: string;
  @ApiProperty() @IsInt() @Min(1) @Max(10) quantity: number;
}

/** A dependency whose readiness the tests switch on and off. */
@Injectable()
class FakeDependency {
  up = true;
  constructor(health: HealthRegistry) {
    health.register('fake', async () => {
      if (!this.up) throw new Error('fake dependency is down');
    });
  }
}

/** Lets a test hold a request in flight. */
const gate = { entered: () => undefined as void, release: Promise.resolve() };

@Controller('items')
class ItemsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get(':id')
  get(@Param('id') id: string) {
    if (id === 'missing') throw new NotFoundException('Item not found');
    if (id === 'boom') throw new Error('secret internal detail');
    return { id, registry: this.metrics.registry === undefined ? 'none' : 'own' };
  }

  @Get('slow/one')
  async slow() {
    gate.entered();
    await gate.release;
    return { slow: true };
  }

  @Post()
  create(@Body() body: CreateItemDto) {
    return { created: body, quantityType: typeof body.quantity };
  }
}

@Module({ controllers: [ItemsController], providers: [FakeDependency] })
class ItemsModule {}

function definition(name: string): ServiceDefinition {
  return {
    name,
    port: 0,
    config: BaseConfig,
    module: (): DynamicModule => ({ module: ItemsModule }),
    swagger: { title: `${name} API`, description: 'test', version: '1', aliases: ['/docs'] },
    errorFilter: () => new EnvelopeErrorFilter(),
    configure: (app) => {
      app.setGlobalPrefix('api/v1');
      app.use('/raw', (_req: unknown, res: { locals: Record<string, unknown>; end: (s: string) => void }) => {
        res.locals.metricsRoute = '/raw/*';
        res.end('raw');
      });
    },
  };
}

const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent' };

describe('createServiceApp', () => {
  let app: Awaited<ReturnType<typeof createServiceApp>>['app'];

  beforeAll(async () => {
    ({ app } = await createServiceApp(definition('items-api'), { env }));
  });
  afterAll(() => app.close());

  const http = () => request(app.getHttpServer());

  it('answers /healthz outside the global prefix', async () => {
    const res = await http().get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers /readyz 200 while checks pass and 503 naming the failing check', async () => {
    const ok = await http().get('/readyz').expect(200);
    expect(ok.body).toEqual({ status: 'ok', checks: { fake: { status: 'up' } } });

    const dependency = app.get(FakeDependency);
    dependency.up = false;
    try {
      const down = await http().get('/readyz').expect(503);
      expect(down.body).toEqual({ status: 'error', checks: { fake: { status: 'down', error: 'fake dependency is down' } } });
    } finally {
      dependency.up = true;
    }
  });

  it('counts requests by route template in /metrics', async () => {
    await http().get('/api/v1/items/42').expect(200);
    await http().get('/api/v1/items/missing').expect(404);
    await http().get('/raw/anything/here').expect(200);
    await http().get('/no/such/path').expect(404);
    const res = await http().get('/metrics').expect(200);
    expect(res.text).toContain('http_requests_total{method="GET",route="/raw/*",status="200",service="items-api"} 1');
    expect(res.text).toContain('http_requests_total{method="GET",route="(unmatched)",status="404",service="items-api"} 1');
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toContain('http_requests_total{method="GET",route="/api/v1/items/:id",status="200",service="items-api"} 1');
    expect(res.text).toContain('http_requests_total{method="GET",route="/api/v1/items/:id",status="404",service="items-api"} 1');
    expect(res.text).toContain('http_request_duration_seconds_bucket');
    expect(res.text).toContain('process_cpu_user_seconds_total');
    expect(res.text).not.toContain('/api/v1/items/42');
  });

  it('serves Swagger UI from local assets and the JSON document', async () => {
    const html = await http().get('/api/docs').redirects(1).expect(200);
    expect(html.text).toContain('swagger-ui-bundle.js');
    expect(html.text).not.toMatch(/https?:\/\/(?!localhost|127\.0\.0\.1)[^"'\s]*\.(js|css)/);
    await http().get('/api/docs/swagger-ui-bundle.js').expect(200);

    const json = await http().get('/api/docs-json').expect(200);
    expect(json.body.info.title).toBe('items-api API');
    expect(Object.keys(json.body.paths)).toEqual(expect.arrayContaining(['/api/v1/items/{id}', '/api/v1/items']));
    expect(Object.keys(json.body.paths).some((p) => /healthz|readyz|metrics/.test(p))).toBe(false);

    const alias = await http().get('/docs').redirects(1).expect(200);
    expect(alias.text).toContain('swagger-ui-bundle.js');
  });

  it('believes X-Forwarded-For only from loopback and private-network peers', () => {
    const trust = app.getHttpAdapter().getInstance().get('trust proxy fn') as (addr: string, hop: number) => boolean;
    for (const peer of ['127.0.0.1', '::1', '10.1.2.3', '172.16.0.9', '192.168.1.1', 'fd00::1', '169.254.1.1']) expect({ peer, trusted: trust(peer, 0) }).toEqual({ peer, trusted: true });
    for (const peer of ['8.8.8.8', '203.0.113.7', '2001:db8::1']) expect({ peer, trusted: trust(peer, 0) }).toEqual({ peer, trusted: false });
  });

  it('echoes X-Request-Id and generates one when absent', async () => {
    const echoed = await http().get('/api/v1/items/1').set('X-Request-Id', 'req-abc-123').expect(200);
    expect(echoed.headers['x-request-id']).toBe('req-abc-123');
    const generated = await http().get('/api/v1/items/1').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('validates and transforms bodies through the global pipe', async () => {
    const ok = await http().post('/api/v1/items').send({ email: 'a@example.com', quantity: 3 }).expect(201);
    expect(ok.body).toEqual({ created: { email: 'a@example.com', quantity: 3 }, quantityType: 'number' });

    const bad = await http()
      .post('/api/v1/items')
      .set('X-Request-Id', 'req-validation')
      .send({ email: 'nope', quantity: 11, extra: true })
      .expect(422);
    expect(bad.body.success).toBe(false);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    expect(bad.body.error.requestId).toBe('req-validation');
    expect(bad.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'extra', 'quantity']);
  });

  it('answers malformed JSON with 400 and unknown routes with 404 in the error shape', async () => {
    const malformed = await http().post('/api/v1/items').set('Content-Type', 'application/json').send('{"email":').expect(400);
    expect(malformed.body.error.code).toBe('BAD_REQUEST');
    expect(malformed.body.error.requestId).toBe(malformed.headers['x-request-id']);

    const unknown = await http().get('/api/v1/nothing-here').expect(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });

  it('refuses NUL characters and unpaired surrogates in bodies and path parameters, naming the field, never a 500', async () => {
    const body = await http().post('/api/v1/items').send({ email: 'a\u0000@example.com', quantity: 3 }).expect(422);
    expect(body.body.error.errors).toEqual([expect.objectContaining({ field: 'email', code: 'invalid_string' })]);
    const param = await http().get('/api/v1/items/a%00b').expect(422);
    expect(param.body.error.errors).toEqual([expect.objectContaining({ field: 'id' })]);
    // An unpaired surrogate escaped in JSON: not a character, refused by PostgreSQL's jsonb.
    const lone = await http().post('/api/v1/items').set('Content-Type', 'application/json').send('{"email":"a\\ud800@example.com","quantity":3}').expect(422);
    expect(lone.body.error.errors).toEqual([expect.objectContaining({ field: 'email', code: 'invalid_string' })]);
  });

  it('refuses JSON nested deeper than 32 levels before anything recurses over it', async () => {
    const nested = (depth: number) => `{"email":"a@example.com","quantity":1,"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const deep = await http().post('/api/v1/items').set('Content-Type', 'application/json').send(nested(20_000)).expect(422);
    expect(deep.body.error.errors).toEqual([expect.objectContaining({ field: 'x.0', code: 'too_deep' })]);
    // 31 levels pass the depth check (and then fail the whitelist, as any unknown property does).
    const shallow = await http().post('/api/v1/items').set('Content-Type', 'application/json').send(nested(31)).expect(422);
    expect(shallow.body.error.errors).toEqual([expect.objectContaining({ field: 'x', code: 'unrecognized_key' })]);
  });

  it('answers 413 for bodies over the limit', async () => {
    const res = await http()
      .post('/api/v1/items')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ email: 'x'.repeat(1024 * 1024 + 10) }))
      .expect(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('hides the details of unexpected errors', async () => {
    const res = await http().get('/api/v1/items/boom').expect(500);
    expect(res.body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(res.body)).not.toContain('secret internal detail');
  });
});

describe('startService', () => {
  it('runs two apps in one process with separate metrics and closes without signals', async () => {
    const a: RunningService = await startService(definition('app-a'), { env, port: 0 });
    const b: RunningService = await startService(definition('app-b'), { env, port: 0 });
    try {
      expect(a.url).not.toBe(b.url);
      await request(a.url).get('/api/v1/items/1').expect(200);
      await request(a.url).get('/api/v1/items/1').expect(200);
      await request(b.url).get('/api/v1/items/1').expect(200);

      const metricsA = (await request(a.url).get('/metrics').expect(200)).text;
      const metricsB = (await request(b.url).get('/metrics').expect(200)).text;
      expect(metricsA).toContain('http_requests_total{method="GET",route="/api/v1/items/:id",status="200",service="app-a"} 2');
      expect(metricsB).toContain('http_requests_total{method="GET",route="/api/v1/items/:id",status="200",service="app-b"} 1');
      expect(metricsB).not.toContain('app-a');
      expect(process.listenerCount('SIGTERM')).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
    expect(a.app.getHttpServer().listening).toBe(false);
    await expect(request(a.url).get('/healthz')).rejects.toThrow();
  });
});

describe('RunningService.close', () => {
  it('stops accepting, lets the request in flight finish, then closes the app', async () => {
    const running = await startService(definition('drain-api'), { env, port: 0 });
    let release!: () => void;
    gate.release = new Promise<void>((resolve) => (release = resolve));
    const entered = new Promise<void>((resolve) => (gate.entered = resolve));

    const inFlight = request(running.url).get('/api/v1/items/slow/one');
    const response = inFlight.then((res) => res);
    await entered;

    const closed = running.close();
    await expect(request(running.url).get('/healthz')).rejects.toThrow(/ECONNREFUSED|socket hang up|ECONNRESET/);
    release();
    const res = await response;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ slow: true });
    await closed;
    expect(running.app.getHttpServer().listening).toBe(false);
    await expect(running.close()).resolves.toBeUndefined();
  });
});

describe('swagger.enabled', () => {
  it('turns the docs and their aliases off', async () => {
    const def = definition('hidden-docs');
    def.swagger = { ...def.swagger!, enabled: (c) => c.NODE_ENV !== 'production' };
    const { app } = await createServiceApp(def, { env: { ...env, NODE_ENV: 'production' } });
    try {
      await request(app.getHttpServer()).get('/api/docs').expect(404);
      await request(app.getHttpServer()).get('/api/docs-json').expect(404);
      await request(app.getHttpServer()).get('/docs').expect(404);
      await request(app.getHttpServer()).get('/healthz').expect(200);
    } finally {
      await app.close();
    }
  });
});

describe('provides', () => {
  @Module({ providers: [{ provide: 'test:signal', useValue: true }], exports: ['test:signal'] })
  class SignalModule {}

  it('finds a token a nested module provides, and answers false for a missing one without logging an error', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error');
    const def = definition('signals');
    def.module = (): DynamicModule => ({ module: ItemsModule, imports: [SignalModule] });
    const { app } = await createServiceApp(def, { env });
    try {
      expect(provides(app, 'test:signal')).toBe(true);
      expect(provides(app, 'test:nobody-provides-this')).toBe(false);
      // Nest's exception zone logs what the app's own get() cannot find: the platform asks elsewhere.
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
      await app.close();
    }
  });
});
