import { Controller, Get, Module } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import request from 'supertest';
import { BaseConfig } from '../config/base.config';
import { createServiceApp } from '../create-service-app';

@Controller('things')
class ThingsController {
  @Get()
  list() {
    return [];
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

/** The document as Swagger UI receives it: embedded in the UI's init script. */
function embeddedDocument(script: string): { servers?: { url: string }[] } {
  const match = /let options = (\{[\s\S]*?\});\s*\n/.exec(script);
  if (!match) throw new Error(`no options object in the init script:\n${script.slice(0, 500)}`);
  return (JSON.parse(match[1]) as { swaggerDoc: { servers?: { url: string }[] } }).swaggerDoc;
}

describe('Swagger servers from X-Forwarded-Prefix', () => {
  let app: NestExpressApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    ({ app } = await createServiceApp(
      {
        name: 'things-api',
        port: 0,
        config: BaseConfig,
        module: () => ({ module: ThingsModule }),
        swagger: { title: 'things', description: 'test', version: '1', aliases: ['/docs'] },
        configure: (a) => {
          a.setGlobalPrefix('api/v1');
        },
      },
      { env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' } },
    ));
  });
  afterAll(() => app.close());

  it('answers servers [/] when called directly', async () => {
    const json = await http().get('/api/docs-json').expect(200);
    expect(json.body.servers).toEqual([{ url: '/' }]);
    expect(Object.keys(json.body.paths)).toEqual(['/api/v1/things']);
    const script = await http().get('/api/docs/swagger-ui-init.js').expect(200);
    expect(embeddedDocument(script.text).servers).toEqual([{ url: '/' }]);
  });

  it('answers servers [<prefix>] behind a proxy, in the JSON, the YAML and the UI (also at an alias)', async () => {
    const json = await http().get('/api/docs-json').set('X-Forwarded-Prefix', '/things').expect(200);
    expect(json.body.servers).toEqual([{ url: '/things' }]);
    const yaml = await http().get('/api/docs-yaml').set('X-Forwarded-Prefix', '/things').expect(200);
    expect(yaml.text).toMatch(/^servers:\n {2}- url: \/things$/m);
    const script = await http().get('/api/docs/swagger-ui-init.js').set('X-Forwarded-Prefix', '/edge/things/').expect(200);
    expect(embeddedDocument(script.text).servers).toEqual([{ url: '/edge/things' }]);
    const alias = await http().get('/docs/swagger-ui-init.js').set('X-Forwarded-Prefix', '/things').expect(200);
    expect(embeddedDocument(alias.text).servers).toEqual([{ url: '/things' }]);
  });

  it('ignores a prefix that is not a plain path', async () => {
    for (const header of ['https://evil.example', '/things?x=1', '/a/../b', '</script><script>alert(1)</script>']) {
      const json = await http().get('/api/docs-json').set('X-Forwarded-Prefix', header).expect(200);
      expect({ header, servers: json.body.servers }).toEqual({ header, servers: [{ url: '/' }] });
      const script = await http().get('/api/docs/swagger-ui-init.js').set('X-Forwarded-Prefix', header).expect(200);
      expect(script.text).not.toContain('evil.example');
      expect(script.text).not.toContain('<script>');
    }
  });

  it('serves each request its own servers (no answer is cached across prefixes)', async () => {
    await http().get('/api/docs/swagger-ui-init.js').set('X-Forwarded-Prefix', '/one').expect(200);
    const plain = await http().get('/api/docs/swagger-ui-init.js').expect(200);
    expect(embeddedDocument(plain.text).servers).toEqual([{ url: '/' }]);
  });
});

describe('ReDoc served locally (swagger.redoc)', () => {
  let app: NestExpressApplication;
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    ({ app } = await createServiceApp(
      {
        name: 'things-api',
        port: 0,
        config: BaseConfig,
        module: () => ({ module: ThingsModule }),
        swagger: { title: 'things <docs>', description: 'test', version: '1', redoc: '/redoc' },
      },
      { env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' }, logger: false },
    ));
    await app.init();
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers a page that loads the document and the bundle by relative URLs (so it works under a gateway prefix)', async () => {
    const res = await http().get('/redoc').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<redoc spec-url="api/docs-json"></redoc>');
    expect(res.text).toContain('<script src="redoc-assets/redoc.standalone.js"></script>');
    expect(res.text).toContain('<title>things &#60;docs&#62;</title>');
    expect(res.text).not.toMatch(/https?:\/\//);
    // The bundle's footer logo lives on a CDN: the page's policy keeps the browser from fetching it.
    expect(res.headers['content-security-policy']).toContain("img-src 'self' data: blob:");
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('serves the standalone bundle from the redoc package, and the document it points at', async () => {
    const bundle = await http().get('/redoc-assets/redoc.standalone.js').expect(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(Number(bundle.headers['content-length'])).toBeGreaterThan(100_000);
    const doc = await http().get('/api/docs-json').expect(200);
    expect(doc.body.info.title).toBe('things <docs>');
  });
});

describe('the document is built on the first request for it', () => {
  let app: NestExpressApplication | undefined;
  afterEach(async () => {
    jest.restoreAllMocks();
    await app?.close();
  });

  it('is not built at start, then once for every route and alias that serves it', async () => {
    const build = jest.spyOn(SwaggerModule, 'createDocument');
    ({ app } = await createServiceApp(
      { name: 'things-api', port: 0, config: BaseConfig, module: () => ({ module: ThingsModule }), swagger: { title: 'things', description: 'test', version: '1', aliases: ['/docs'] } },
      { env: { NODE_ENV: 'test', LOG_LEVEL: 'silent' }, logger: false },
    ));
    expect(build).not.toHaveBeenCalled();
    const http = request(app.getHttpServer());
    expect(Object.keys((await http.get('/api/docs-json').expect(200)).body.paths)).toEqual(['/things']);
    await http.get('/api/docs-yaml').expect(200);
    await http.get('/api/docs/swagger-ui-init.js').expect(200);
    await http.get('/docs/swagger-ui-init.js').expect(200);
    expect(build).toHaveBeenCalledTimes(1);
  });
});
