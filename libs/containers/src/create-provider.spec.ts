import { ContainerProviders, createContainerProvider } from './create-provider';
import { DockerProvider } from './docker/docker-provider';

describe('createContainerProvider', () => {
  it('builds a Docker provider from the option, else DOCKER_HOST, else the default socket', () => {
    const fromOption = createContainerProvider({ provider: 'docker', dockerHost: 'tcp://docker:2375' }, { DOCKER_HOST: 'unix:///other.sock' });
    expect((fromOption as DockerProvider).endpoint).toEqual({ kind: 'tcp', host: 'docker', port: 2375 });
    const fromEnv = createContainerProvider({ provider: 'docker' }, { DOCKER_HOST: 'unix:///run/docker.sock' });
    expect((fromEnv as DockerProvider).endpoint).toEqual({ kind: 'unix', socketPath: '/run/docker.sock' });
    expect((createContainerProvider({ provider: 'docker' }) as DockerProvider).endpoint).toEqual({ kind: 'unix', socketPath: '/var/run/docker.sock' });
  });

  it('refuses a bad DOCKER_HOST at creation', () => {
    expect(() => createContainerProvider({ provider: 'docker' }, { DOCKER_HOST: 'ssh://me@host' })).toThrow(/DOCKER_HOST 'ssh:\/\/me@host'/);
  });

  it('refuses Kubernetes without a kubeconfig outside a cluster', () => {
    expect(() => createContainerProvider({ provider: 'kubernetes' }, {})).toThrow(/neither a kubeconfig path \(KUBECONFIG\) nor in-cluster/);
  });

  it('uses in-cluster config inside a pod, and says what is missing outside one', () => {
    // This process runs in no pod: the service variables the client reads are missing.
    expect(() => createContainerProvider({ provider: 'kubernetes' }, { KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toThrow(
      /in-cluster configuration is not usable: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/,
    );
  });

  it('refuses an unknown provider name', () => {
    expect(() => createContainerProvider({ provider: 'podman' } as never)).toThrow("Unknown container provider 'podman': use docker or kubernetes");
  });
});

describe('ContainerProviders', () => {
  it('creates each provider once, on first use', () => {
    const providers = new ContainerProviders({ docker: { dockerHost: 'tcp://docker:2375' } }, { DOCKER_HOST: 'unix:///ignored.sock' });
    const docker = providers.get('docker');
    expect(docker).toBe(providers.get('docker'));
    expect((docker as DockerProvider).endpoint).toEqual({ kind: 'tcp', host: 'docker', port: 2375 });
    expect(() => providers.get('kubernetes')).toThrow(/kubeconfig/);
  });
});
