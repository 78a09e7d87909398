import type { LoggerService } from '@nestjs/common';

/**
 * Contexts of Nest's start-up chatter: a line per module, controller and route, then "started".
 * Useful when wiring goes wrong (LOG_LEVEL=debug), noise otherwise.
 */
export const NEST_STARTUP_CONTEXTS: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'WebSocketsController']);

/**
 * Nest's logger for every app: nestjs-pino's, except that the informational lines of Nest's start-up
 * (NEST_STARTUP_CONTEXTS) are logged at debug. Warnings and errors of every context stay as they are.
 */
export class PlatformNestLogger implements LoggerService {
  constructor(private readonly inner: Required<Pick<LoggerService, 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal'>>) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    if (typeof context === 'string' && NEST_STARTUP_CONTEXTS.has(context)) this.inner.debug(message, ...params);
    else this.inner.log(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.inner.error(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.inner.warn(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.inner.debug(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.inner.verbose(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.inner.fatal(message, ...params);
  }
}
