import type { DynamicModule, ExceptionFilter, INestApplicationContext, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DocumentBuilder } from '@nestjs/swagger';
import type { BaseConfig } from './config/base.config';
import type { SecurityHeadersOptions } from './http/security-headers';

export interface ServiceCommand<C extends BaseConfig = BaseConfig> {
  description: string;
  run: (ctx: INestApplicationContext, args: string[], config: C) => Promise<void>;
}

export interface SwaggerDefinition<C extends BaseConfig = BaseConfig> {
  title: string;
  description: string;
  version: string;
  /** Docs are served unless this returns false (conversation-api turns them off in production). */
  enabled?: (config: C) => boolean;
  /** Extra UI paths serving the same document, such as '/docs'. */
  aliases?: string[];
  /** A path serving ReDoc (the redoc package's standalone bundle, served locally) for the same document, such as '/redoc'. */
  redoc?: string;
  configure?: (builder: DocumentBuilder) => DocumentBuilder;
}

/** Everything the platform needs to run one app: `main.ts`, tests and tools/start.ts all use it. */
export interface ServiceDefinition<C extends BaseConfig = BaseConfig> {
  /** 'auth-api': logs, metrics, event `source`. */
  name: string;
  /** Default PORT. */
  port: number;
  /** Database schema / database name ('auth'); omit when the app has no database. */
  schema?: string;
  config: Type<C>;
  /** Root module of the app. */
  module: (config: C) => DynamicModule;
  swagger?: SwaggerDefinition<C>;
  /** Default true; the gateway sets false to stream bodies. */
  bodyParser?: boolean;
  /** Limit of JSON and urlencoded bodies when bodyParser is on; default '1mb'. A route raises its own with `@BodyLimit('15mb')`. */
  bodyLimit?: string;
  /**
   * helmet's headers on every answer of the app's Express routes (pages, docs, JSON), with the
   * platform's Content-Security-Policy (`PLATFORM_CSP`); options change the CSP or CORP; `false` none.
   */
  securityHeaders?: SecurityHeadersOptions | false;
  /** The spec's error shape (a filter from @platform/errors); default Nest's built-in filter. */
  errorFilter?: (config: C) => ExceptionFilter;
  /** Runs before Swagger is built and before init: global prefix, extra middleware, CORS. */
  configure?: (app: NestExpressApplication, config: C) => void | Promise<void>;
  commands?: Record<string, ServiceCommand<C>>;
}
