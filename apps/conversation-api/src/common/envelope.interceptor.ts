import { Injectable, SetMetadata, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ok, page } from '@platform/envelopes';
import { map, type Observable } from 'rxjs';

const RAW = 'conversation:raw-response';

/** The handler's return value is sent as it is (the webhook handshake's plain-text challenge). */
export const RawResponse = (): MethodDecorator & ClassDecorator => SetMetadata(RAW, true);

/** What a list handler returns; the interceptor turns it into `{success, data: items, meta: {total, page, limit}}`. */
export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

function isPaged(value: unknown): value is Paged<unknown> {
  if (!value || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.items) && typeof v.total === 'number' && typeof v.page === 'number' && typeof v.limit === 'number' && Object.keys(v).length === 4;
}

/**
 * The spec's success envelope on every route: `{success: true, data}`; a handler returning
 * `{items, total, page, limit}` is unwrapped into `{success: true, data: items, meta: {total, page, limit}}`.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http' || this.reflector.getAllAndOverride<boolean>(RAW, [context.getHandler(), context.getClass()])) return next.handle();
    return next.handle().pipe(
      map((value: unknown) => {
        if (isPaged(value)) return page(value.items, { total: value.total, page: value.page, limit: value.limit });
        return ok(value ?? null);
      }),
    );
  }
}
