// Headers and limits of every app: helmet's headers on pages and answers, body limits
// per route (JSON over the limit → 413 in the app's shape, multipart untouched), slow clients cut
// off by the headers, request and keep-alive timeouts, and production answers without internal text.
import { Body, Controller, Get, Header, InternalServerErrorException, Module, Post, Req, type DynamicModule } from '@nestjs/common';
import { ApiError, EnvelopeErrorFilter, PlainErrorFilter } from '@platform/errors';
import type { Request } from 'express';
import net from 'node:net';
import request from 'supertest';
import { BaseConfig } from '../config/base.config';
import { createServiceApp } from '../create-service-app';
import { HealthRegistry } from '../health/health.registry';
import type { ServiceDefinition } from '../service-definition';
import { startService, type RunningService } from '../start-service';
import { BodyLimit } from './body-limits';

const PAGE_STYLE = 'body{font-family:sans-serif}';
const PAGE = `<!doctype html><html><head><title>Unsubscribe</title><style>${PAGE_STYLE}</style></head><body><form method="post"><button>Unsubscribe</button></form></body></html>`;

@Controller('pages')
class PagesController {
  @Get('unsubscribe')
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  @Post('unsubscribe')
  @Header('Content-Type', 'text/html; charset=utf-8')
  submit(@Body() body: Record<string, unknown>): string {
    return `<!doctype html><p>done ${Object.keys(body).join(',')}</p>`;
  }
}

@Controller('bodies')
class BodiesController {
  @Post('small')
  small(@Body() body: { data?: string }) {
    return { length: body.data?.length ?? 0 };
  }

  @Post('large')
  @BodyLimit('8kb')
  large(@Body() body: { data?: string }) {
    return { length: body.data?.length ?? 0 };
  }

  /** Reads a multipart body itself (as multer would): the platform's parsers leave it alone. */
  @Post('upload')
  async upload(@Req() req: Request) {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    return { bytes, parsed: req.body !== undefined && Object.keys(req.body as object).length > 0 };
  }
}

@Controller('uploads')
@BodyLimit('4kb')
class RaisedController {
  @Post(':id/meta')
  meta(@Body() body: { data?: string }) {
    return { length: body.data?.length ?? 0 };
  }
}

@Controller('fail')
class FailController {
  @Get('bug')
  bug() {
    throw new Error('connect ECONNREFUSED 10.1.2.3:5432 at /srv/app/secret-module.ts');
  }

  @Get('nest')
  nest() {
    throw new InternalServerErrorException('pg password authentication failed for user "svc"');
  }

  @Get('upstream')
  upstream() {
    throw new ApiError(503, 'QUEUE_UNAVAILABLE', 'The queue store is unreachable: connect ECONNREFUSED 10.9.9.9:6379');
  }

  @Get('exposed')
  exposed() {
    throw new ApiError(503, 'BILLING_NOT_CONFIGURED', 'Billing is not configured on this deployment', { expose: true });
  }

  @Get('client')
  client() {
    throw new ApiError(409, 'ALREADY_DONE', 'The run already finished');
  }
}

@Module({
  controllers: [PagesController, BodiesController, RaisedController, FailController],
  providers: [
    {
      provide: 'DOWN_CHECK',
      inject: [HealthRegistry],
      useFactory: (health: HealthRegistry) => {
        health.register('queue', () => Promise.reject(new Error('connect ECONNREFUSED 10.9.9.9:6379')));
        return true;
      },
    },
  ],
})
class HardeningModule {}

function definition(overrides: Partial<ServiceDefinition> = {}): ServiceDefinition {
  return {
    name: 'hardening-test',
    port: 0,
    config: BaseConfig,
    module: (): DynamicModule => ({ module: HardeningModule }),
    swagger: { title: 'hardening', description: 'test', version: '1' },
    errorFilter: () => new EnvelopeErrorFilter(),
    bodyLimit: '1kb',
    ...overrides,
  };
}

const env = { NODE_ENV: 'test', LOG_LEVEL: 'silent' };

/**
 * Writes `head` at once, then `slow` one character every `intervalMs`, until the server closes the
 * connection (or 5 s pass). (@platform/testing's `sendSlowly`, which a platform test cannot import:
 * the testing lib depends on the platform.)
 */
function sendSlowly(port: number, slow: string, intervalMs: number, head = ''): Promise<{ status: number; sent: number; closed: boolean; text: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1');
    let sent = 0;
    let closed = false;
    let ticker: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      clearInterval(ticker);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), sent, closed, text });
    };
    const timer = setTimeout(finish, 5_000);
    socket.on('connect', () => {
      if (head) socket.write(head);
      ticker = setInterval(() => {
        if (sent < slow.length && socket.writable) socket.write(slow[sent++]);
      }, intervalMs);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
  });
}

describe('security headers (helmet) on pages and answers', () => {
  let app: Awaited<ReturnType<typeof createServiceApp>>['app'];

  beforeAll(async () => {
    ({ app } = await createServiceApp(definition(), { env, logger: false }));
  });
  afterAll(() => app?.close());

  it('an HTML page answers with CSP, nosniff, frame and referrer policies, and still works', async () => {
    const res = await request(app.getHttpServer()).get('/pages/unsubscribe').expect(200);
    expect(res.text).toBe(PAGE);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("script-src-attr 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(csp).not.toContain('https:');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['x-powered-by']).toBeUndefined();

    // The page's form posts back to the same URL (form-action 'self'), urlencoded like a browser.
    const posted = await request(app.getHttpServer()).post('/pages/unsubscribe').type('form').send('List-Unsubscribe=One-Click').expect(201);
    expect(posted.text).toContain('done List-Unsubscribe');
  });

  it('the docs page and JSON answers carry them too', async () => {
    const docs = await request(app.getHttpServer()).get('/api/docs/').expect(200);
    expect(docs.headers['content-security-policy']).toContain("default-src 'self'");
    expect(docs.headers['x-frame-options']).toBe('SAMEORIGIN');
    const json = await request(app.getHttpServer()).get('/healthz').expect(200);
    expect(json.headers['x-content-type-options']).toBe('nosniff');
  });

  it('a definition may change the policy, or turn the headers off', async () => {
    const custom = await createServiceApp(definition({ securityHeaders: { contentSecurityPolicy: { 'connect-src': ["'self'", 'wss:'] }, crossOriginResourcePolicy: 'cross-origin' } }), {
      env,
      logger: false,
    });
    const off = await createServiceApp(definition({ securityHeaders: false }), { env, logger: false });
    try {
      const res = await request(custom.app.getHttpServer()).get('/pages/unsubscribe').expect(200);
      expect(res.headers['content-security-policy']).toContain("connect-src 'self' wss:");
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      const bare = await request(off.app.getHttpServer()).get('/pages/unsubscribe').expect(200);
      expect(bare.headers['content-security-policy']).toBeUndefined();
    } finally {
      await custom.app.close();
      await off.app.close();
    }
  });
});

describe('body limits per route', () => {
  let app: Awaited<ReturnType<typeof createServiceApp>>['app'];
  const sized = (n: number) => ({ data: 'x'.repeat(n) });

  beforeAll(async () => {
    ({ app } = await createServiceApp(definition(), { env, logger: false }));
  });
  afterAll(() => app?.close());

  it('a JSON body over the app limit is 413 in the app error shape, not 500', async () => {
    await request(app.getHttpServer()).post('/bodies/small').send(sized(500)).expect(201, { length: 500 });
    const res = await request(app.getHttpServer()).post('/bodies/small').send(sized(2_000)).expect(413);
    expect(res.body).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE', statusCode: 413, message: 'Request body exceeds the limit of 1kb' } });
    const form = await request(app.getHttpServer()).post('/bodies/small').type('form').send(`data=${'x'.repeat(2_000)}`).expect(413);
    expect(form.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('@BodyLimit raises the limit of one route, and that route still refuses more than its own', async () => {
    await request(app.getHttpServer()).post('/bodies/large').send(sized(5_000)).expect(201, { length: 5_000 });
    const res = await request(app.getHttpServer()).post('/bodies/large').send(sized(10_000)).expect(413);
    expect(res.body.error.message).toBe('Request body exceeds the limit of 8kb');
    // A chunked body (no Content-Length) is held to the same limits.
    const chunked = await sendSlowly(
      (await listenOnce(app)).port,
      '',
      10,
      `POST /bodies/large HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        `${(12_000).toString(16)}\r\n${JSON.stringify({ data: 'y'.repeat(11_990) }).slice(0, 12_000)}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
  });

  it('@BodyLimit on a controller applies to its routes with path parameters', async () => {
    await request(app.getHttpServer()).post('/uploads/abc/meta').send(sized(3_000)).expect(201, { length: 3_000 });
    await request(app.getHttpServer()).post('/uploads/abc/meta').send(sized(5_000)).expect(413);
  });

  it('multipart bodies are not parsed nor capped by the JSON limit: the route reads them itself', async () => {
    const res = await request(app.getHttpServer())
      .post('/bodies/upload')
      .attach('file', Buffer.alloc(50_000, 1), 'image.png')
      .expect(201);
    expect(res.body.bytes).toBeGreaterThan(50_000);
    expect(res.body.parsed).toBe(false);
  });

  it('an OPTIONS request of a raised route is not answered by the limit matcher (a CORS preflight reaches CORS)', async () => {
    const res = await request(app.getHttpServer()).options('/bodies/large').set('Content-Type', 'application/json').send('{}');
    expect(res.status).toBe(404);
    expect(res.headers.allow).toBeUndefined();
  });
});

/** Listens on a free loopback port once (the app is shared by the tests of a describe). */
async function listenOnce(app: Awaited<ReturnType<typeof createServiceApp>>['app']): Promise<{ port: number }> {
  const server = app.getHttpServer();
  if (!server.listening) await app.listen(0, '127.0.0.1');
  return { port: (server.address() as { port: number }).port };
}

describe('slow clients are cut off (slowloris)', () => {
  let service: RunningService;
  let port: number;

  beforeAll(async () => {
    service = await startService(definition(), {
      env: {
        ...env,
        HTTP_HEADERS_TIMEOUT_MS: '400',
        HTTP_REQUEST_TIMEOUT_MS: '800',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
        HTTP_TIMEOUT_CHECK_INTERVAL_MS: '50',
      },
      port: 0,
      host: '127.0.0.1',
      logger: false,
    });
    port = Number(new URL(service.url).port);
  });
  afterAll(() => service?.close());

  it('headers sent byte by byte: 408 and the connection closed by the headers timeout', async () => {
    const raw = `GET /healthz HTTP/1.1\r\nHost: t\r\n${'X-Slow: '.padEnd(200, 'a')}\r\n\r\n`;
    const answer = await sendSlowly(port, raw, 20);
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(408);
    expect(answer.sent).toBeLessThan(raw.length);
  });

  it('a body that trickles in: cut off by the request timeout', async () => {
    const head = `POST /bodies/small HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`;
    const answer = await sendSlowly(port, `{"data":"${'z'.repeat(487)}"}`, 10, head);
    expect(answer.closed).toBe(true);
    // The headers were complete at once: the request timeout (800 ms), not the headers timeout, cut it.
    expect(answer.sent).toBeGreaterThan(0);
    expect(answer.sent).toBeLessThan(500);
  });

  it('an idle keep-alive connection is closed; a normal request is answered', async () => {
    const answer = await sendSlowly(port, '', 10, 'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n');
    expect(answer.status).toBe(200);
    expect(answer.closed).toBe(true);
  });
});

describe('production answers carry no stack and no internal text', () => {
  let prod: Awaited<ReturnType<typeof createServiceApp>>['app'];
  let dev: Awaited<ReturnType<typeof createServiceApp>>['app'];
  const internal = /ECONNREFUSED|10\.\d+\.\d+\.\d+|secret-module|password|\.ts\b|\bat \w|stack/;

  beforeAll(async () => {
    ({ app: prod } = await createServiceApp(definition(), { env: { NODE_ENV: 'production', LOG_LEVEL: 'silent' }, logger: false }));
    ({ app: dev } = await createServiceApp(definition({ errorFilter: () => new PlainErrorFilter() }), { env, logger: false }));
  });
  afterAll(async () => {
    await prod?.close();
    await dev?.close();
  });

  it.each([
    ['/fail/bug', 500, 'INTERNAL_ERROR', 'Internal server error'],
    ['/fail/nest', 500, 'INTERNAL_ERROR', 'Internal server error'],
    ['/fail/upstream', 503, 'QUEUE_UNAVAILABLE', 'Service unavailable: retry later'],
  ])('%s → %i with a generic message and the request id', async (path, status, code, message) => {
    const res = await request(prod.getHttpServer()).get(path).set('X-Request-Id', 'req-prod-1').expect(status);
    expect(res.body).toMatchObject({ success: false, error: { code, message, statusCode: status, requestId: 'req-prod-1' } });
    expect(res.text).not.toMatch(internal);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  });

  it('a 5xx message written for the client, and 4xx messages, are kept', async () => {
    const exposed = await request(prod.getHttpServer()).get('/fail/exposed').expect(503);
    expect(exposed.body.error.message).toBe('Billing is not configured on this deployment');
    const client = await request(prod.getHttpServer()).get('/fail/client').expect(409);
    expect(client.body.error.message).toBe('The run already finished');
  });

  it('/readyz names the failing check but not its error', async () => {
    const res = await request(prod.getHttpServer()).get('/readyz').expect(503);
    expect(res.body).toEqual({ status: 'error', checks: { queue: { status: 'down' } } });
  });

  it('outside production the deliberate 5xx messages stay (unknown errors never show theirs)', async () => {
    const upstream = await request(dev.getHttpServer()).get('/fail/upstream').expect(503);
    expect(upstream.body.error).toContain('ECONNREFUSED');
    const bug = await request(dev.getHttpServer()).get('/fail/bug').expect(500);
    expect(bug.text).not.toMatch(internal);
    const ready = await request(dev.getHttpServer()).get('/readyz').expect(503);
    expect(ready.body.checks.queue.error).toContain('ECONNREFUSED');
  });
});
