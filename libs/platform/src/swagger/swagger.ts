import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject, type SwaggerCustomOptions } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { BaseConfig } from '../config/base.config';
import type { ServiceDefinition } from '../service-definition';
import { documentForRequest } from './forwarded-prefix';

export const DOCS_PATH = 'api/docs';
export const DOCS_JSON_PATH = 'api/docs-json';

/**
 * Swagger UI at /api/docs and the document at /api/docs-json (plus any aliases), never under the
 * app's global prefix. The UI's scripts and styles come from the local swagger-ui-dist package.
 * Every answer (UI init script, JSON, YAML) carries `servers` from the request's X-Forwarded-Prefix,
 * so "Try it out" calls the API through the gateway when the docs were opened through it. The
 * document is built on the first request for it, not at start: scanning every route of a large
 * app takes a few hundred milliseconds of CPU that no start-up (a pod's, a test's) needs to wait for.
 */
export function setupSwagger<C extends BaseConfig>(app: NestExpressApplication, def: ServiceDefinition<C>, config: C): boolean {
  const swagger = def.swagger;
  if (swagger?.enabled && !swagger.enabled(config)) return false;
  let builder = new DocumentBuilder()
    .setTitle(swagger?.title ?? def.name)
    .setDescription(swagger?.description ?? `${def.name} API`)
    .setVersion(swagger?.version ?? '1.0');
  if (swagger?.configure) builder = swagger.configure(builder);
  const openApiConfig = builder.build();
  let built: OpenAPIObject | undefined;
  const document = () => (built ??= SwaggerModule.createDocument(app, openApiConfig));
  const title = swagger?.title ?? def.name;
  const patchDocumentOnRequest: SwaggerCustomOptions['patchDocumentOnRequest'] = (req, _res, doc) => documentForRequest(doc, req as IncomingMessage);
  SwaggerModule.setup(DOCS_PATH, app, document, {
    jsonDocumentUrl: DOCS_JSON_PATH,
    yamlDocumentUrl: 'api/docs-yaml',
    customSiteTitle: title,
    useGlobalPrefix: false,
    patchDocumentOnRequest,
  });
  for (const alias of swagger?.aliases ?? []) {
    // The UI embeds the document in its init script, so an alias needs no JSON route of its own.
    SwaggerModule.setup(alias.replace(/^\/+/, ''), app, document, { customSiteTitle: title, useGlobalPrefix: false, raw: false, patchDocumentOnRequest });
  }
  if (swagger?.redoc) setupRedoc(app, swagger.redoc, title);
  return true;
}

/** The redoc package's self-contained browser bundle (no CDN, no fonts from outside). */
export const REDOC_BUNDLE = 'redoc.standalone.js';

/**
 * Everything from this origin only: the bundle's footer logo (an image on redocly's CDN) is never
 * requested and simply not shown. Inline styles (styled-components) and the search worker (a blob)
 * are the bundle's own.
 */
export const REDOC_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
].join('; ');

/**
 * ReDoc at `route` for the document at /api/docs-json, its script at `<route>-assets/redoc.standalone.js`.
 * Both are referenced relatively, so the page works directly and under the gateway's prefix
 * (`/knowledge/redoc` loads `/knowledge/api/docs-json`, whose `servers` follow X-Forwarded-Prefix).
 */
function setupRedoc(app: NestExpressApplication, route: string, title: string): void {
  const page = `/${route.replace(/^\/+|\/+$/g, '')}`;
  const base = page.slice(page.lastIndexOf('/') + 1);
  const depth = page.split('/').length - 2;
  const up = '../'.repeat(depth);
  const bundle = require.resolve(`redoc/bundles/${REDOC_BUNDLE}`);
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body { margin: 0; padding: 0; }</style>',
    '</head>',
    '<body>',
    `<redoc spec-url="${up}${DOCS_JSON_PATH}"></redoc>`,
    `<script src="${base}-assets/${REDOC_BUNDLE}"></script>`,
    '</body>',
    '</html>',
  ].join('\n');
  const http = app.getHttpAdapter().getInstance();
  http.get(page, (_req: Request, res: Response) => {
    res.type('html').set({ 'Cache-Control': 'no-cache', 'Content-Security-Policy': REDOC_CSP }).send(html);
  });
  http.get(`${page}-assets/${REDOC_BUNDLE}`, (_req: Request, res: Response) => {
    res.type('application/javascript').sendFile(path.resolve(bundle), { maxAge: '1h' });
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
