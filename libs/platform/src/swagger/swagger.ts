import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type SwaggerCustomOptions } from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import type { BaseConfig } from '../config/base.config';
import type { ServiceDefinition } from '../service-definition';
import { documentForRequest } from './forwarded-prefix';

export const DOCS_PATH = 'api/docs';
export const DOCS_JSON_PATH = 'api/docs-json';

/**
 * Swagger UI at /api/docs and the document at /api/docs-json (plus any aliases), never under the
 * app's global prefix. The UI's scripts and styles come from the local swagger-ui-dist package.
 * Every answer (UI init script, JSON, YAML) carries `servers` from the request's X-Forwarded-Prefix,
 * so "Try it out" calls the API through the gateway when the docs were opened through it.
 */
export function setupSwagger<C extends BaseConfig>(app: NestExpressApplication, def: ServiceDefinition<C>, config: C): boolean {
  const swagger = def.swagger;
  if (swagger?.enabled && !swagger.enabled(config)) return false;
  let builder = new DocumentBuilder()
    .setTitle(swagger?.title ?? def.name)
    .setDescription(swagger?.description ?? `${def.name} API`)
    .setVersion(swagger?.version ?? '1.0');
  if (swagger?.configure) builder = swagger.configure(builder);
  const document = SwaggerModule.createDocument(app, builder.build());
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
  return true;
}
