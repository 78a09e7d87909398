import { Injectable, SetMetadata, UseInterceptors, applyDecorators, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
import type { Response } from 'express';
import type { Observable } from 'rxjs';

export interface DeprecationOptions {
  /** When the route was deprecated (the `Deprecation` header, RFC 9745: `@<unix seconds>`). */
  since: string;
  /** When it goes away (the `Sunset` header, RFC 8594), at least six months after `since`. */
  sunset: string;
  /** The route to use instead, sent as `Link: <…>; rel="successor-version"`. */
  successor?: string;
}

const DEPRECATION = 'conversation:deprecation';

/** The three headers of a deprecated route, from its options. */
export function deprecationHeaders(opts: DeprecationOptions): Record<string, string> {
  const since = new Date(opts.since);
  const sunset = new Date(opts.sunset);
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(since.getTime() / 1000)}`,
    Sunset: sunset.toUTCString(),
  };
  if (opts.successor) headers.Link = `<${opts.successor}>; rel="successor-version"`;
  return headers;
}

@Injectable()
export class DeprecationInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const opts = this.reflector.get<DeprecationOptions>(DEPRECATION, context.getHandler());
    if (opts) {
      const res = context.switchToHttp().getResponse<Response>();
      for (const [name, value] of Object.entries(deprecationHeaders(opts))) res.setHeader(name, value);
    }
    return next.handle();
  }
}

/**
 * Marks a v1 route deprecated: every answer carries `Deprecation`, `Sunset` and (with a successor)
 * `Link` headers, and the OpenAPI operation is flagged deprecated. The sunset must be at least six
 * months after the deprecation (the spec's rule); a shorter one fails at start.
 */
export function Deprecated(opts: DeprecationOptions): MethodDecorator {
  const since = new Date(opts.since);
  const sunset = new Date(opts.sunset);
  const earliest = new Date(since);
  earliest.setUTCMonth(earliest.getUTCMonth() + 6);
  if (Number.isNaN(since.getTime()) || Number.isNaN(sunset.getTime()) || sunset.getTime() < earliest.getTime()) {
    throw new Error(`@Deprecated: sunset ${opts.sunset} must be a date at least six months after ${opts.since}`);
  }
  const headers = deprecationHeaders(opts);
  return applyDecorators(
    SetMetadata(DEPRECATION, opts),
    UseInterceptors(DeprecationInterceptor),
    // Flags the OpenAPI operation, keeping what @ApiOperation set (place @Deprecated above it).
    (_target: object, _key: string | symbol, descriptor: PropertyDescriptor) => {
      const handler = descriptor.value as object;
      const current = (Reflect.getMetadata(DECORATORS.API_OPERATION, handler) ?? {}) as { description?: string };
      const note = `Deprecated: answers carry ${Object.entries(headers).map(([k, v]) => `\`${k}: ${v}\``).join(', ')}.`;
      Reflect.defineMetadata(DECORATORS.API_OPERATION, { ...current, deprecated: true, description: [current.description, note].filter(Boolean).join('\n\n') }, handler);
    },
  );
}
