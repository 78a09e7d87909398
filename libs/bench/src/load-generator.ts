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

/** Answers of a run of GETs: also the 99th percentile latency (ms). */
export interface GetLoadResult extends LoadResult {
  p99: number;
}

/** Answers of a closed loop of POSTs: also the mean latency (ms) and the first few answers' bodies. */
export interface PostLoadResult extends GetLoadResult {
  average: number;
  bodies: string[];
}

/** What the load process is asked to do (load-process.ts). */
export type LoadJob =
  | { kind: 'list'; base: string; requests: LoadRequest[]; concurrency: number }
  | { kind: 'get'; url: string; amount: number; connections: number; headers: Record<string, string> }
  | { kind: 'post'; url: string; seconds: number; connections: number; headers: Record<string, string>; body: string };

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
  run(base: string, requests: LoadRequest[], concurrency: number): Promise<LoadResult> {
    return this.ask({ kind: 'list', base, requests, concurrency });
  }

  /** `amount` GETs of `url` over `connections` (autocannon), timed from the start to the last answer. */
  get(url: string, amount: number, connections: number, headers: Record<string, string> = {}): Promise<GetLoadResult> {
    return this.ask({ kind: 'get', url, amount, connections, headers });
  }

  /**
   * POSTs of `body` (`[<id>]` replaced by a number unique to the run) on `connections` keep-alive
   * connections for `seconds`, each sent when the connection's previous one is answered; every
   * request sent is answered before this resolves.
   */
  post(url: string, seconds: number, connections: number, body: string, headers: Record<string, string> = {}): Promise<PostLoadResult> {
    return this.ask({ kind: 'post', url, seconds, connections, body, headers });
  }

  /** Sends one job; the process answers it with the result of its kind (load-process.ts). */
  private async ask<T extends LoadResult>(job: LoadJob): Promise<T> {
    this.child.send(job);
    const [reply] = (await once(this.child, 'message')) as [T | { error: string }];
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
