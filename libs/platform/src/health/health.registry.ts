import { Injectable } from '@nestjs/common';

export interface HealthCheckResult {
  status: 'up' | 'down';
  error?: string;
}

export interface ReadinessReport {
  status: 'ok' | 'error';
  checks: Record<string, HealthCheckResult>;
}

export interface HealthCheckOptions {
  /** A check that takes longer counts as down; default 3000 ms. */
  timeoutMs?: number;
}

interface Registered {
  check: () => Promise<void>;
  timeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 3000;

/**
 * Readiness checks of one app (`/readyz`). The database and messaging modules register `database` and
 * `broker`; apps register their own (`redis`, `engine`). A check resolves when the dependency is usable
 * and throws otherwise; a hung check counts as down after its timeout.
 */
@Injectable()
export class HealthRegistry {
  private readonly checks = new Map<string, Registered>();

  register(name: string, check: () => Promise<void>, opts: HealthCheckOptions = {}): void {
    this.checks.set(name, { check, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  }

  unregister(name: string): void {
    this.checks.delete(name);
  }

  names(): string[] {
    return [...this.checks.keys()];
  }

  /** Runs every check in parallel. */
  async check(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.checks].map(async ([name, registered]) => [name, await runCheck(registered)] as const),
    );
    const checks = Object.fromEntries(entries);
    return { status: entries.every(([, r]) => r.status === 'up') ? 'ok' : 'error', checks };
  }
}

async function runCheck({ check, timeoutMs }: Registered): Promise<HealthCheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([Promise.resolve().then(check), timeout]);
    return { status: 'up' };
  } catch (err) {
    return { status: 'down', error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}
