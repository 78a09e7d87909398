import { RequestMethod, SetMetadata } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

export const BODY_LIMIT_METADATA = 'platform:body-limit';

/** The default limit of JSON and urlencoded bodies when a service definition names none. */
export const DEFAULT_BODY_LIMIT = '1mb';

/**
 * Raises (or lowers) the JSON and urlencoded body limit of one route, or of every route of a
 * controller, above the app's `bodyLimit`: `@BodyLimit('15mb') @Post('send')`. The limit is a size
 * as body-parser reads it ('512kb', '15mb'). Multipart and other content types are never parsed
 * by the platform, so an upload route keeps its own cap (multer's `limits.fileSize`).
 */
export const BodyLimit = (limit: string) => SetMetadata(BODY_LIMIT_METADATA, limit);

interface RouteLimit {
  method: RequestMethod;
  path: string;
  limit: string;
}

const EXPRESS_METHODS: Partial<Record<RequestMethod, 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head' | 'all'>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.OPTIONS]: 'options',
  [RequestMethod.HEAD]: 'head',
  [RequestMethod.ALL]: 'all',
};

function joinPath(...parts: string[]): string {
  const joined = parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/');
  return `/${joined}`;
}

function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? [value] : ['/'];
}

/** Every route of the app's controllers whose handler or controller carries `@BodyLimit(...)`. */
export function collectRouteLimits(app: NestExpressApplication): RouteLimit[] {
  const modules = app.get(ModulesContainer, { strict: false });
  const prefix = (app as unknown as { config?: { getGlobalPrefix?: () => string } }).config?.getGlobalPrefix?.() ?? '';
  const limits: RouteLimit[] = [];
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (typeof controller !== 'function') continue;
      const controllerLimit = Reflect.getMetadata(BODY_LIMIT_METADATA, controller) as string | undefined;
      const controllerPaths = asList(Reflect.getMetadata(PATH_METADATA, controller));
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        if (name === 'constructor') continue;
        const handler = Object.getOwnPropertyDescriptor(proto, name)?.value as object | undefined;
        if (typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const limit = (Reflect.getMetadata(BODY_LIMIT_METADATA, handler) as string | undefined) ?? controllerLimit;
        if (!limit) continue;
        for (const controllerPath of controllerPaths) {
          for (const methodPath of asList(Reflect.getMetadata(PATH_METADATA, handler))) {
            limits.push({ method, path: joinPath(prefix, controllerPath, methodPath), limit });
          }
        }
      }
    }
  }
  return limits;
}

type LimitedRequest = Request & { platformBodyLimit?: string };

/**
 * The JSON and urlencoded parsers of the platform with a limit per route: the app's `bodyLimit`, or
 * the `@BodyLimit()` of the route the request is for (matched with Express's own router, so paths
 * mean what they mean to Nest's routes). `routes` may be filled after the middleware is installed
 * (`setRoutes`, once the app is initialised and its routes are known).
 */
export class BodyParsers {
  private matcher: express.Router | undefined;
  private readonly parsers = new Map<string, RequestHandler[]>();

  constructor(
    readonly defaultLimit: string,
    private readonly verify: (req: Request, res: Response, buf: Buffer) => void,
  ) {
    this.parsersFor(defaultLimit);
  }

  setRoutes(routes: RouteLimit[]): void {
    if (routes.length === 0) {
      this.matcher = undefined;
      return;
    }
    const router = express.Router();
    for (const route of routes) {
      const method = EXPRESS_METHODS[route.method] ?? 'all';
      const mark = (req: Request, _res: Response, next: NextFunction) => {
        (req as LimitedRequest).platformBodyLimit ??= route.limit;
        next('router');
      };
      router[method](route.path, mark);
    }
    this.matcher = router;
  }

  /** The limit that applies to this request (after `middleware` has matched its route). */
  static limitOf(req: Request, fallback: string): string {
    return (req as LimitedRequest).platformBodyLimit ?? fallback;
  }

  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const parse = () => {
      const [json, urlencoded] = this.parsersFor(BodyParsers.limitOf(req, this.defaultLimit));
      json(req, res, (err?: unknown) => (err ? next(err) : urlencoded(req, res, next)));
    };
    // Only a request with a body is matched (an OPTIONS preflight never: Express's router would answer it itself).
    const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
    if (!this.matcher || req.method === 'OPTIONS' || !hasBody) return parse();
    this.matcher(req, res, (err?: unknown) => (err && err !== 'router' ? next(err) : parse()));
  };

  private parsersFor(limit: string): RequestHandler[] {
    let parsers = this.parsers.get(limit);
    if (!parsers) {
      parsers = [express.json({ limit, verify: this.verify }), express.urlencoded({ limit, extended: true, verify: this.verify })];
      this.parsers.set(limit, parsers);
    }
    return parsers;
  }
}
