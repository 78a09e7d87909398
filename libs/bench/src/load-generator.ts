import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

/** One request of a load run; a `body` is sent as JSON. */
export interface LoadRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

/** Answers of one load run: its seconds (first request to last answer) and the answers by status. */
export interface LoadResult {
  seconds: number;
  statuses: Record<string, number>;
}

/**
 * The bench's load generator in its own process (load-process.ts, forked from the compiled lib),
 * driven over IPC, one run at a time: the service measured and its baseline never share an event
 * loop with the client.
 */
export class LoadProcess {
  private constructor(private readonly child: ChildProcess) {}

  static async start(): Promise<LoadProcess> {
    const child = fork(join(__dirname, 'load-process.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await once(child, 'message'); // ready
    return new LoadProcess(child);
  }

  /** Every request once, over `concurrency` connections, timed from the first request to the last answer. */
  async run(base: string, requests: LoadRequest[], concurrency: number): Promise<LoadResult> {
    this.child.send({ base, requests, concurrency });
    const [reply] = (await once(this.child, 'message')) as [LoadResult | { error: string }];
    if ('error' in reply) throw new Error(`load generator: ${reply.error}`);
    return reply;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.kill();
    await exited;
  }
}

/** Requests per second over `runs` that each sent `n` requests. */
export const perSecond = (runs: LoadResult[], n: number) => (n * runs.length) / runs.reduce((s, r) => s + r.seconds, 0);
