import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedHttpServer, startSilentServer, type FaultyServer } from '@platform/testing';
import { DockerProvider } from './docker/docker-provider';
import { KubernetesProvider } from './kubernetes/kubernetes-provider';
import { isContainersError, type ContainerProvider } from './provider';
import { rejection } from './test/helpers';

/**
 * The Docker Engine API or the Kubernetes API server slow, failing or silent (loopback fakes): every
 * call ends within its timeout, a 429/502/503/504 or a refused connection is retried with backoff, any
 * other answer is not, and the error says what happened (`status`, attempts).
 */
describe('container providers against outside servers that misbehave', () => {
  const servers: FaultyServer[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'containers-faults-'));
  });

  afterAll(async () => {
    for (const s of servers) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function kubeconfigFor(server: FaultyServer): Promise<string> {
    const path = join(dir, `kubeconfig-${server.port}`);
    await writeFile(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{ name: fake, cluster: { server: "${server.url}", insecure-skip-tls-verify: true } }]`,
        'users: [{ name: fake, user: { token: fake-token } }]',
        'contexts: [{ name: fake, context: { cluster: fake, user: fake } }]',
        'current-context: fake',
      ].join('\n'),
    );
    return path;
  }

  // Each call's deadline: short where the silence is the test, ample elsewhere (a loaded CI machine
  // took over 300 ms for a Kubernetes client's call that the fake answered at once).
  const SILENT_TIMEOUT_MS = 300;
  const TIMEOUT_MS = 10_000;
  const providers: Array<[string, (server: FaultyServer, timeoutMs?: number) => Promise<ContainerProvider>, ScriptedOk]> = [
    [
      'Docker',
      async (s, timeoutMs = TIMEOUT_MS) => new DockerProvider({ dockerHost: `tcp://127.0.0.1:${s.port}`, timeoutMs, retryDelayMs: 20 }),
      { status: 200, body: 'OK', headers: { 'Api-Version': '1.47' } },
    ],
    [
      'Kubernetes',
      async (s, timeoutMs = TIMEOUT_MS) => new KubernetesProvider({ kubeconfig: await kubeconfigFor(s), timeoutMs, retryDelayMs: 20 }),
      { status: 200, body: { major: '1', minor: '31', gitVersion: 'v1.31.0-fake', platform: 'linux/amd64' } },
    ],
  ];

  describe.each(providers)('%s', (name, create, ok) => {
    it('gives up on a server that accepts and never answers after its timeout, without retrying', async () => {
      const silent = await startSilentServer();
      servers.push(silent);
      const provider = await create(silent, SILENT_TIMEOUT_MS);
      const err = await rejection(provider.ping());
      expect(isContainersError(err, 'PROVIDER_ERROR')).toBe(true);
      expect((err as Error).message).toContain(`no answer within ${SILENT_TIMEOUT_MS} ms`);
      expect(silent.connections).toBe(1);
    });

    it('reports a 500 with its status and message, at once', async () => {
      const failing = await startScriptedHttpServer(() => ({ status: 500, body: { message: `${name} is broken` } }));
      servers.push(failing);
      const err = await rejection((await create(failing)).ping());
      expect(isContainersError(err, 'PROVIDER_ERROR')).toBe(true);
      expect(err).toMatchObject({ status: 500 });
      expect(failing.requests).toBe(1);
    });

    it('retries a 503 with backoff and succeeds once the server is back', async () => {
      const flaky = await startScriptedHttpServer((n) => (n <= 2 ? { status: 503, body: { message: 'overloaded' } } : ok));
      servers.push(flaky);
      await expect((await create(flaky)).ping()).resolves.toBeUndefined();
      expect(flaky.requests).toBe(3);
    });

    it('stops after its retries, saying how often it tried', async () => {
      const down = await startScriptedHttpServer(() => ({ status: 503, body: { message: 'overloaded' } }));
      servers.push(down);
      const err = await rejection((await create(down)).ping());
      expect(err).toMatchObject({ status: 503, message: expect.stringContaining('(after 3 attempts)') });
      expect(down.requests).toBe(3);
    });
  });
});

type ScriptedOk = { status: number; body: string | object; headers?: Record<string, string> };
