// The services of a run started as deployed, each in its own process (stack.ts), with the fuzz
// setups' credentials and seeded records (services.ts), and the gateway in front of those running.
// Shared by `npm run fuzz` and the mixed load of `npm run bench`.
import { SERVICES_BEHIND_GATEWAY, upstreamEnvName } from '@platform/registry';
import { FUZZ_SERVICES, type FuzzService, type Running, type Setup } from './services';
import { startApp, type FuzzApp } from './stack';

export interface StackOptions {
  /** the workspace root (dist/apps/<app>/main.js under it) */
  root: string;
  log?: (line: string) => void;
}

export class ServiceStack implements Running {
  readonly apps = new Map<string, FuzzApp>();
  readonly setups = new Map<string, Setup>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly stops: (() => Promise<void>)[] = [];

  app(name: string): FuzzApp {
    const app = this.apps.get(name);
    if (!app) throw new Error(`${name} is not running`);
    return app;
  }

  onStop(fn: () => Promise<void>): void {
    this.stops.push(fn);
  }

  /** Starts a service (its needs first) unless it runs or is starting; services without a need between them start at once. */
  ensureStarted(svc: FuzzService, opts: StackOptions): Promise<void> {
    let starting = this.starting.get(svc.name);
    if (!starting) {
      starting = (async () => {
        for (const need of svc.needs ?? []) {
          const dep = FUZZ_SERVICES.find((s) => s.name === need);
          if (dep) await this.ensureStarted(dep, opts);
        }
        const env = (await svc.env?.(this)) ?? {};
        const app = await startApp(opts.root, svc.name, { env, database: svc.database });
        this.apps.set(svc.name, app);
        const setup = await svc.setup?.(app, this);
        if (setup) this.setups.set(svc.name, setup);
        opts.log?.(`${svc.name} ready on ${app.url}`);
      })();
      this.starting.set(svc.name, starting);
    }
    return starting;
  }

  /** The gateway, routing to every service of the stack that has a gateway prefix. */
  async startGateway(opts: StackOptions): Promise<FuzzApp> {
    const env = Object.fromEntries(SERVICES_BEHIND_GATEWAY.filter((s) => this.apps.has(s.name)).map((s) => [upstreamEnvName(s.name), this.app(s.name).url]));
    const gateway = await startApp(opts.root, 'gateway', { env, database: false });
    this.apps.set('gateway', gateway);
    opts.log?.(`gateway ready on ${gateway.url}`);
    return gateway;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.apps.values()].map((a) => a.stop().catch(() => undefined)));
    for (const fn of this.stops.reverse()) await fn().catch(() => undefined);
  }
}
