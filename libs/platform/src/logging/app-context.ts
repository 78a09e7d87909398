import type { Logger } from 'pino';
// nestjs-pino keeps the logger of the current request in this AsyncLocalStorage; outside a request it
// falls back to one process-wide logger (the first app's). Running an app's start-up inside a store
// holding the app's own logger makes everything that app starts (timers, consumers, init logs) log
// with its own `service`, even when several apps share one process.
import { storage, Store } from 'nestjs-pino/storage';

export function runWithAppLogger<T>(logger: Logger, fn: () => T): T {
  return storage.run(new Store(logger), fn);
}
