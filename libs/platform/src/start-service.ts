import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BaseConfig } from './config/base.config';
import { appState, createServiceApp, type CreateServiceAppOptions } from './create-service-app';
import { runWithAppLogger } from './logging/app-context';
import type { ServiceDefinition } from './service-definition';

export interface StartServiceOptions extends CreateServiceAppOptions {
  /** Overrides PORT (0 picks a free port). */
  port?: number;
  /** Listen address; default all interfaces. */
  host?: string;
}

export interface RunningService<C extends BaseConfig = BaseConfig> {
  name: string;
  url: string;
  app: NestExpressApplication;
  config: C;
  /** Stops accepting, drains in-flight requests, then closes the app (onModuleDestroy closes consumers and pools). */
  close(): Promise<void>;
}

/** How long shutdown waits for in-flight requests before cutting the remaining connections. */
export const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Creates the app and listens. Installs no process signal handlers (several apps share one process
 * under `npm start`); `runService` does that for a single app.
 */
export async function startService<C extends BaseConfig>(
  def: ServiceDefinition<C>,
  opts: StartServiceOptions = {},
): Promise<RunningService<C>> {
  // A fixed port is part of the configuration from the start (modules may build URLs from PORT).
  const env = opts.port ? { ...(opts.env ?? process.env), PORT: String(opts.port) } : opts.env;
  const { app, config } = await createServiceApp(def, { ...opts, env });
  if (opts.port !== undefined) config.PORT = opts.port;
  const listen = () => (opts.host ? app.listen(config.PORT, opts.host) : app.listen(config.PORT));
  try {
    const logger = appState(app)?.logger;
    await (logger ? runWithAppLogger(logger, listen) : listen());
  } catch (err) {
    await app.close().catch(() => undefined);
    throw err;
  }
  const server = app.getHttpServer() as Server;
  const port = (server.address() as AddressInfo).port;
  config.PORT = port;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;
  return {
    name: def.name,
    url,
    app,
    config,
    close: () => (closing ??= closeGracefully(app)),
  };
}

/** Stop accepting, close idle keep-alive sockets, wait for in-flight requests, then close the app. */
export async function closeGracefully(app: NestExpressApplication, drainTimeoutMs = DRAIN_TIMEOUT_MS): Promise<void> {
  const server = app.getHttpServer() as Server;
  const state = appState(app);
  if (server.listening) {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const drained = state ? await state.tracker.idle(drainTimeoutMs) : true;
    if (!drained) state?.logger.warn({ inFlight: state.tracker.count }, 'shutdown: cutting requests still in flight');
    server.closeAllConnections();
    await closed;
  }
  await (state ? runWithAppLogger(state.logger, () => app.close()) : app.close());
  state?.logger.flush();
}
