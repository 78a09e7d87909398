// installRawRoutes: a route answered before Express carries what an Express answer carries (request
// id, security headers, the app's error shape, the HTTP metrics), hands a request on to Express (a
// body it read replayed to the platform's parsers), holds the graceful shutdown until it answers, and
// a handler that throws costs its connection, never the process; every other request reaches
// Express untouched.
import { Body, Controller, Get, Header, HttpCode, Module, Post, Redirect, Req, type DynamicModule } from '@nestjs/common';
import { ApiError, DATABASE_LOSS_AS_503, EnvelopeErrorFilter } from '@platform/errors';
import { once } from 'node:events';
import net from 'node:net';
import type { Request } from 'express';
import request from 'supertest';
import { BaseConfig } from '../config/base.config';
import { createServiceApp } from '../create-service-app';
import { closeGracefully } from '../start-service';
import type { ServiceDefinition } from '../service-definition';
import { installRawRoutes, type RawRoute } from './raw-routes';

const SAME_JSON = { via: 'either', text: 'é <b> & "q"', list: [1, null, true] };
const SAME_TEXT = 'received ✓';
const SAME_TARGET = 'https://shop.example.test/a b/é?q=<x>&r="1"';

@Controller()
class EchoController {
  @Post('fast/body')
  echo(@Body() body: Record<string, unknown>) {
    return { via: 'express', body };
  }

  @Post('fast/json')
  echoJson(@Body() body: Record<string, unknown>) {
    return { via: 'express', body };
  }

  @Post('fast/object')
  echoObject(@Body() body: Record<string, unknown>) {
    return { via: 'express', body };
  }

  @Get('fast/handed')
  handed() {
    return { via: 'express' };
  }

  @Get('slow')
  slow() {
    return { via: 'express' };
  }

  // The answers the raw routes' `json`, `send`, `redirect` and `ip` write themselves, as Express writes them.
  @Post('same/json')
  @HttpCode(202)
  sameJson() {
    return SAME_JSON;
  }

  @Post('same/text')
  @HttpCode(200)
  @Header('content-type', 'text/plain')
  sameText() {
    return SAME_TEXT;
  }

  @Get('same/redirect')
  @Redirect(SAME_TARGET, 302)
  sameRedirect() {}

  @Get('same/json')
  sameJsonGet() {
    return SAME_JSON;
  }

  @Get('same/ip')
  sameIp(@Req() req: Request) {
    return { ip: req.ip };
  }
}

// An app with a database (DatabaseModule provides this): a lost connection is answered 503.
@Module({ controllers: [EchoController], providers: [{ provide: DATABASE_LOSS_AS_503, useValue: true }] })
class EchoModule {}

class LostConnection extends Error {}

/** `/fast/held` waits for the test: `entered` resolves when it has the request, `release()` lets it answer. */
let held: { entered: Promise<void>; enter(): void; release(): void; released: Promise<void> };
function holdNext(): void {
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  held = { entered, enter, release, released };
}

const FAST: RawRoute = {
  match: (method, url) => (url.startsWith('/fast/') ? `/fast/:x` : null),
  handle: ({ req, res, json, send, redirect, ip, express, fail, handOn, readJson, readJsonObject }) => {
    const x = req.url.slice('/fast/'.length);
    if (x === 'held') {
      held.enter();
      void held.released.then(() => json(200, { via: 'raw', x }));
      return;
    }
    if (x === 'handed') return handOn();
    if (x === 'fail') return fail(new ApiError(409, 'ALREADY_DONE', 'The run already finished'));
    if (x === 'lost') return fail(new LostConnection('connection terminated'));
    if (x === 'pg-lost') return fail(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
    if (x === 'throw') throw new Error('a bug in the handler');
    if (x === 'json') return readJson(64, (raw) => json(200, { via: 'raw', json: JSON.parse(raw.toString('utf8')) }));
    if (x === 'object') return readJsonObject(512, (body, raw) => json(200, { via: 'raw', body, bytes: raw.length }));
    if (x === 'same-json') return json(202, SAME_JSON);
    if (x === 'same-text') return send(200, SAME_TEXT, 'text/plain');
    if (x === 'same-redirect') return redirect(302, SAME_TARGET);
    if (x === 'same-ip') return json(200, { ip: ip() });
    // Where Express does more than ExpressAnswers: a GET's freshness (304), a Vary already there, a 204.
    if (x === 'same-json-get') return json(200, SAME_JSON);
    if (x === 'vary-redirect') return void (res.setHeader('Vary', 'Origin'), redirect(302, SAME_TARGET));
    if (x === 'no-content') return send(204, 'gone', 'text/plain');
    if (x === 'express') return void express().res.status(200).json({ via: 'raw', methods: typeof express().req.get === 'function' });
    if (x === 'body') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handOn(Buffer.concat(chunks)));
      return;
    }
    json(200, { via: 'raw', x });
  },
};

const definition: ServiceDefinition = {
  name: 'raw-routes-test',
  port: 0,
  config: BaseConfig,
  module: (): DynamicModule => ({ module: EchoModule }),
  swagger: { title: 'raw', description: 'test', version: '1' },
  errorFilter: () => new EnvelopeErrorFilter(),
  bodyLimit: '1kb',
  configure: (app, config) =>
    installRawRoutes(app, {
      config,
      filter: new EnvelopeErrorFilter(),
      routes: [FAST],
      mapError: (err) => (err instanceof LostConnection ? new ApiError(503, 'DATABASE_UNAVAILABLE', 'The database is unavailable') : err),
    }),
};

describe('installRawRoutes', () => {
  let app: Awaited<ReturnType<typeof createServiceApp>>['app'];

  beforeAll(async () => {
    ({ app } = await createServiceApp(definition, { env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' }, logger: false }));
    await app.init();
  });
  afterAll(() => app?.close());

  it('answers a matched route itself, with the request id and the security headers of an Express answer', async () => {
    const raw = await request(app.getHttpServer()).get('/fast/abc').set('X-Request-Id', 'req-raw-1').expect(200);
    expect(raw.body).toEqual({ via: 'raw', x: 'abc' });
    const viaExpress = await request(app.getHttpServer()).get('/slow').expect(200);
    expect(viaExpress.body).toEqual({ via: 'express' });
    expect(raw.headers['x-request-id']).toBe('req-raw-1');
    for (const name of ['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy']) {
      expect([name, raw.headers[name]]).toEqual([name, viaExpress.headers[name]]);
    }
  });

  it('writes json, send and redirect answers as Express writes them, and ip() is req.ip', async () => {
    const http = request(app.getHttpServer());
    // What may differ: the request id, the date, the connection's keep-alive.
    const answer = (res: request.Response) => ({
      status: res.status,
      headers: Object.fromEntries(Object.entries(res.headers).filter(([name]) => !['x-request-id', 'date', 'connection', 'keep-alive'].includes(name))),
      body: res.text,
    });
    const same = async (raw: request.Test, viaExpress: request.Test) => {
      const [a, b] = [answer(await raw), answer(await viaExpress)];
      expect(a).toEqual(b);
      return a;
    };
    const json = await same(http.post('/fast/same-json'), http.post('/same/json'));
    expect(json).toMatchObject({ status: 202, headers: { 'content-type': 'application/json; charset=utf-8', etag: expect.any(String) } });
    expect(JSON.parse(json.body)).toEqual(SAME_JSON);
    expect(await same(http.post('/fast/same-text'), http.post('/same/text'))).toMatchObject({ status: 200, body: SAME_TEXT, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    for (const accept of [undefined, 'text/html', 'text/plain', 'application/json', 'text/html;q=0.5, text/plain;q=0.9']) {
      const raw = http.get('/fast/same-redirect');
      const viaExpress = http.get('/same/redirect');
      if (accept) [raw, viaExpress].forEach((r) => r.set('Accept', accept));
      const redirected = await same(raw, viaExpress);
      expect(redirected.status).toBe(302);
      expect(redirected.headers.location).toBe('https://shop.example.test/a%20b/%C3%A9?q=%3Cx%3E&r=%221%22');
    }
    await same(http.head('/fast/same-redirect'), http.head('/same/redirect'));
    const ipRaw = await http.get('/fast/same-ip').set('X-Forwarded-For', '203.0.113.9').expect(200);
    const ipExpress = await http.get('/same/ip').set('X-Forwarded-For', '203.0.113.9').expect(200);
    expect(ipRaw.body.ip).toBe(ipExpress.body.ip);
    expect(ipRaw.body.ip).toEqual(expect.any(String));
  });

  it("answers with Express's own methods where Express does more: a GET's freshness, a Vary already set, a 204", async () => {
    const http = request(app.getHttpServer());
    const first = await http.get('/fast/same-json-get').expect(200);
    const viaExpress = await http.get('/same/json').expect(200);
    expect(first.headers.etag).toBe(viaExpress.headers.etag);
    await http.get('/fast/same-json-get').set('If-None-Match', first.headers.etag).expect(304);
    await http.get('/same/json').set('If-None-Match', first.headers.etag).expect(304);
    expect((await http.get('/fast/vary-redirect').expect(302)).headers.vary).toBe('Origin, Accept');
    const empty = await http.get('/fast/no-content').expect(204);
    expect([empty.text, empty.headers['content-type'], empty.headers['content-length']]).toEqual(['', undefined, undefined]);
  });

  it("gives a route Express's methods when it asks for them (express())", async () => {
    expect((await request(app.getHttpServer()).get('/fast/express').expect(200)).body).toEqual({ via: 'raw', methods: true });
  });

  it('answers a lost database connection 503 DATABASE_UNAVAILABLE with Retry-After, as the app\'s routes do', async () => {
    const res = await request(app.getHttpServer()).get('/fast/pg-lost').expect(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.error).toMatchObject({ code: 'DATABASE_UNAVAILABLE', statusCode: 503 });
  });

  it('readJson reads a plain JSON body itself and hands every other one on unread, for the platform parsers', async () => {
    const http = request(app.getHttpServer());
    expect((await http.post('/fast/json').set('content-type', 'application/json').send('{"a":1}').expect(200)).body).toEqual({ via: 'raw', json: { a: 1 } });
    // one over the route's limit, another type, a compressed body: Express and the platform's parsers read it
    expect((await http.post('/fast/json').set('content-type', 'application/json; charset=utf-8').send('{"a":2}').expect(200)).body).toEqual({ via: 'raw', json: { a: 2 } });
    expect((await http.post('/fast/json').set('content-type', 'application/json').send(JSON.stringify({ long: 'x'.repeat(80) })).expect(201)).body).toMatchObject({ via: 'express' });
    expect((await http.post('/fast/json').set('content-type', 'text/plain').send('{"a":3}').expect(201)).body).toMatchObject({ via: 'express' });
    await http.post('/fast/json').set('content-type', 'application/json').set('content-encoding', 'gzip').send('not gzip').expect(400);
  });

  it('readJsonObject parses an object as the platform parser does and hands on, body replayed, what that parser reads otherwise or refuses', async () => {
    const http = request(app.getHttpServer());
    const post = (body: string) => http.post('/fast/object').set('content-type', 'application/json').send(body);
    expect((await post('{"a":[1,{"b":"c"}]}').expect(200)).body).toEqual({ via: 'raw', body: { a: [1, { b: 'c' }] }, bytes: 19 });
    // an array and white space before the object (the parser's strict mode reads both), to Express
    expect((await post('[{"a":1}]').expect(201)).body).toEqual({ via: 'express', body: [{ a: 1 }] });
    expect((await post(' {"a":1}').expect(201)).body).toEqual({ via: 'express', body: { a: 1 } });
    // malformed, and nested deeper than MAX_JSON_DEPTH: the platform's answers
    expect((await post('{"a":').expect(400)).body.error).toBeDefined();
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    expect((await post(deep).expect(422)).body.error).toBeDefined();
  });

  it('answers errors in the app shape, after mapError', async () => {
    const failed = await request(app.getHttpServer()).get('/fast/fail').expect(409);
    expect(failed.body).toMatchObject({ success: false, error: { code: 'ALREADY_DONE', statusCode: 409 } });
    const lost = await request(app.getHttpServer()).get('/fast/lost').expect(503);
    expect(lost.body.error.code).toBe('DATABASE_UNAVAILABLE');
  });

  it('hands a request on to Express, a body it read replayed to the parsers (their limits too)', async () => {
    expect((await request(app.getHttpServer()).get('/fast/handed').expect(200)).body).toEqual({ via: 'express' });
    const echoed = await request(app.getHttpServer()).post('/fast/body').send({ a: 1, b: ['x'] }).expect(201);
    expect(echoed.body).toEqual({ via: 'express', body: { a: 1, b: ['x'] } });
    const big = await request(app.getHttpServer()).post('/fast/body').send({ data: 'x'.repeat(2000) }).expect(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('closes the connection of a handler that throws and keeps serving', async () => {
    await expect(request(app.getHttpServer()).get('/fast/throw')).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await request(app.getHttpServer()).get('/fast/again').expect(200)).body).toEqual({ via: 'raw', x: 'again' });
  });

  it('survives a client that goes away while a route reads its body', async () => {
    const server = app.getHttpServer() as import('node:http').Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /fast/body HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"a":');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await request(server).get('/fast/after').expect(200)).body).toEqual({ via: 'raw', x: 'after' });
  });

  it('holds the graceful shutdown until its answer is sent', async () => {
    const { app: closing } = await createServiceApp(definition, { env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' }, logger: false });
    await closing.listen(0, '127.0.0.1');
    holdNext();
    const answer = request(closing.getHttpServer()).get('/fast/held').then((res) => ({ status: res.status, body: res.body as unknown }));
    await held.entered;
    const closed = closeGracefully(closing, 10_000);
    // Released only after the shutdown has looked at the requests in flight (it cuts every other connection then).
    setImmediate(() => held.release());
    expect(await answer).toEqual({ status: 200, body: { via: 'raw', x: 'held' } });
    await closed;
  });

  it('counts its answers in the HTTP metrics under the route template', async () => {
    const metrics = await request(app.getHttpServer()).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/http_requests_total\{[^}]*route="\/fast\/:x"[^}]*\} \d+/);
  });
});
