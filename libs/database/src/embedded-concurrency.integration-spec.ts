import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');

/**
 * Many connections share the embedded instance's one PGlite session. The scenario
 * (__fixtures__/embedded-concurrency.ts) runs in a child process, where PGlite can start.
 */
describe('embedded PostgreSQL under concurrent connections', () => {
  let dataDir: string;
  let report: {
    wrong: string[];
    counter: number;
    afterDroppedTransaction: number;
    interleaved: { a: string[]; b: string[] };
    idleInTransaction: {
      committedWhileNobodyWaited: number;
      waitedAnswer: number;
      freshAnswer: number;
      forgottenErrors: string[];
      forgottenAfterwards: string;
      logged: string[];
    };
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-concurrency-'));
    const { stdout } = await run(
      process.execPath,
      ['-r', path.join(root, 'libs/testing/jest/register-ts.cjs'), path.join(__dirname, '__fixtures__/embedded-concurrency.ts'), dataDir],
      { cwd: root, timeout: 90_000, maxBuffer: 10 * 1024 * 1024 },
    );
    report = JSON.parse(stdout.trim().split('\n').pop()!);
  }, 120_000);

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps each connection’s extended-protocol unit together (a Parse is never replaced by another connection’s)', () => {
    expect(report.interleaved).toEqual({ a: ['from a'], b: ['from b'] });
  });

  it('answers 400 concurrent parameterized queries on 8 connections correctly, and serializes 50 transactions', () => {
    expect(report.wrong).toEqual([]);
    expect(report.counter).toBe(50);
  });

  it('rolls back the transaction of a connection that disappears in the middle of it', () => {
    expect(report.afterDroppedTransaction).toBe(50);
  });

  it('leaves a transaction idle while nobody waits for the session (it commits afterwards)', () => {
    expect(report.idleInTransaction.committedWhileNobodyWaited).toBe(1);
  });

  it('terminates a connection idle in its transaction while others wait: FATAL 25P03, rolled back, one log line', () => {
    const r = report.idleInTransaction;
    expect(r.waitedAnswer).toBe(1); // the forgotten UPDATE to -1 was rolled back
    expect(r.freshAnswer).toBe(1); // a new connection's startup got through too
    expect(r.forgottenErrors[0]).toBe('25P03 terminating connection due to idle-in-transaction timeout');
    expect(r.forgottenAfterwards).toMatch(/^failed: /);
    expect(r.logged).toEqual([expect.stringMatching(/terminating connection \d+: idle in transaction for \d+ ms while \d+ message\(s\) of other connections waited/)]);
  });
});
