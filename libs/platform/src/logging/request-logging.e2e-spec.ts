import { Body, Controller, Injectable, Logger, Module, Post, Req, type OnModuleInit } from '@nestjs/common';
import { Writable } from 'node:stream';
import request from 'supertest';
import { BaseConfig } from '../config/base.config';
import { createServiceApp } from '../create-service-app';

@Controller('echo')
class EchoController {
  private readonly logger = new Logger(EchoController.name);

  @Post()
  echo(@Body() body: Record<string, unknown>, @Req() req: { rawBody?: Buffer }) {
    this.logger.log({ body }, 'echoing');
    return { keys: Object.keys(body ?? {}), raw: req.rawBody?.length ?? null };
  }
}

@Controller('stream')
class StreamController {
  @Post()
  async count(@Req() req: NodeJS.ReadableStream & { body?: unknown }) {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    return { bytes, parsed: req.body !== undefined };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

@Module({ controllers: [StreamController] })
class StreamModule {}

@Injectable()
class Announcer implements OnModuleInit {
  private readonly logger = new Logger(Announcer.name);
  onModuleInit() {
    this.logger.log('module ready');
    // Work started at init (a consumer, a timer) keeps the app's logger.
    setImmediate(() => this.logger.log('later work'));
  }
}

@Module({ providers: [Announcer] })
class AnnouncerModule {}

function capture() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { stream, lines };
}

describe('request logging', () => {
  it('logs each request and in-request lines with the request id, service and no secrets', async () => {
    const { stream, lines } = capture();
    const { app } = await createServiceApp(
      { name: 'echo-api', port: 0, config: BaseConfig, module: () => ({ module: EchoModule }) },
      { env: { LOG_LEVEL: 'info' }, logDestination: stream },
    );
    try {
      // No DTO here: the whitelisting pipe leaves untyped bodies alone.
      const res = await request(app.getHttpServer())
        .post('/echo')
        .set('X-Request-Id', 'trace-me-1')
        .set('Authorization', 'Bearer very-secret-token')
        .set('Cookie', 'sid=cookie-secret')
        .send({ password: 'hunter2', name: 'visible' })
        .expect(201);
      expect(res.body).toEqual({ keys: ['password', 'name'], raw: Buffer.byteLength(JSON.stringify({ password: 'hunter2', name: 'visible' })) });
      await request(app.getHttpServer()).get('/healthz').expect(200);
    } finally {
      await app.close();
    }

    const echoed = lines.find((l) => l.msg === 'echoing');
    expect(echoed).toMatchObject({ service: 'echo-api', requestId: 'trace-me-1', context: 'EchoController', body: { name: 'visible', password: '[redacted]' } });
    const completed = lines.find((l) => l.msg === 'request completed');
    expect(completed).toMatchObject({ service: 'echo-api', requestId: 'trace-me-1', req: { method: 'POST', url: '/echo' }, res: { statusCode: 201 } });
    const all = JSON.stringify(lines);
    for (const secret of ['hunter2', 'very-secret-token', 'cookie-secret']) expect(all).not.toContain(secret);
    expect(lines.some((l) => l.req?.url === '/healthz')).toBe(false);
  });

  it('leaves bodies unread with bodyParser: false', async () => {
    const { app } = await createServiceApp(
      {
        name: 'stream-api',
        port: 0,
        config: BaseConfig,
        bodyParser: false,
        module: () => ({ module: StreamModule }),
      },
      { env: { LOG_LEVEL: 'silent' } },
    );
    try {
      const payload = JSON.stringify({ data: 'x'.repeat(2 * 1024 * 1024) });
      const res = await request(app.getHttpServer()).post('/stream').set('Content-Type', 'application/json').send(payload).expect(201);
      expect(res.body).toEqual({ bytes: Buffer.byteLength(payload), parsed: false });
    } finally {
      await app.close();
    }
  });

  it('keeps each app\'s service name outside requests when two apps share the process', async () => {
    const first = capture();
    const second = capture();
    const def = (name: string) => ({ name, port: 0, config: BaseConfig, module: () => ({ module: AnnouncerModule }) });
    const a = await createServiceApp(def('first-api'), { env: { LOG_LEVEL: 'info' }, logDestination: first.stream });
    const b = await createServiceApp(def('second-api'), { env: { LOG_LEVEL: 'info' }, logDestination: second.stream });
    await new Promise((resolve) => setImmediate(resolve));
    await a.app.close();
    await b.app.close();
    for (const [{ lines }, service] of [
      [first, 'first-api'],
      [second, 'second-api'],
    ] as const) {
      expect(lines.filter((l) => l.msg === 'module ready' || l.msg === 'later work').map((l) => l.service)).toEqual([service, service]);
      expect(lines.every((l) => l.service === service)).toBe(true);
    }
  });

  it("logs Nest's start-up chatter at debug, and the app's own start-up lines at info", async () => {
    const startup = ['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication'];
    const def = { name: 'quiet-api', port: 0, config: BaseConfig, module: () => ({ module: EchoModule, imports: [AnnouncerModule] }) };
    const atInfo = capture();
    const info = await createServiceApp(def, { env: { LOG_LEVEL: 'info' }, logDestination: atInfo.stream });
    await info.app.close();
    expect(atInfo.lines.filter((l) => startup.includes(l.context))).toEqual([]);
    expect(atInfo.lines.map((l) => l.msg)).toContain('module ready');

    const atDebug = capture();
    const debug = await createServiceApp(def, { env: { LOG_LEVEL: 'debug' }, logDestination: atDebug.stream });
    await debug.app.close();
    const chatter = atDebug.lines.filter((l) => startup.includes(l.context));
    expect(new Set(chatter.map((l) => l.context))).toEqual(new Set(startup));
    expect(chatter.every((l) => l.level === 'debug')).toBe(true);
  });
});

