import { homedir } from 'node:os';
import { join } from 'node:path';
import { DockerProvider, type DockerProviderOptions } from './docker/docker-provider';
import { KubernetesProvider, type KubernetesProviderOptions } from './kubernetes/kubernetes-provider';
import { ContainersError, type ContainerProvider, type ProviderName } from './provider';

export type ContainerProviderConfig =
  | ({ provider: 'docker' } & DockerProviderOptions)
  | ({ provider: 'kubernetes' } & KubernetesProviderOptions);

/** The variables the factory falls back on (pass the app's validated environment, never process.env from a lib). */
export interface ContainerProviderEnv {
  DOCKER_HOST?: string;
  /** Non-empty: TLS to a tcp DOCKER_HOST, the daemon verified (the Docker CLI's variable). */
  DOCKER_TLS_VERIFY?: string;
  /** ca.pem, cert.pem, key.pem; default ~/.docker. */
  DOCKER_CERT_PATH?: string;
  KUBECONFIG?: string;
  KUBERNETES_SERVICE_HOST?: string;
}

/**
 * A provider from configuration, so an app picks one per workload:
 * docker → `dockerHost` ?? env.DOCKER_HOST ?? unix:///var/run/docker.sock, over TLS when
 * env.DOCKER_TLS_VERIFY is non-empty (certificates from env.DOCKER_CERT_PATH, default ~/.docker);
 * kubernetes → `kubeconfig` ?? env.KUBECONFIG (its first path), else in-cluster when
 * env.KUBERNETES_SERVICE_HOST is set (inside a pod), else INVALID_CONFIG.
 */
export function createContainerProvider(config: ContainerProviderConfig, env: ContainerProviderEnv = {}): ContainerProvider {
  switch (config.provider) {
    case 'docker': {
      const { provider: _p, ...opts } = config;
      const tls = opts.tls ?? (env.DOCKER_TLS_VERIFY ? { certPath: env.DOCKER_CERT_PATH || join(homedir(), '.docker') } : undefined);
      return new DockerProvider({ ...opts, dockerHost: opts.dockerHost ?? env.DOCKER_HOST, tls });
    }
    case 'kubernetes': {
      const { provider: _p, ...opts } = config;
      const kubeconfig = opts.kubeconfig ?? env.KUBECONFIG?.split(':').find(Boolean);
      const inCluster = opts.inCluster ?? (!kubeconfig && Boolean(env.KUBERNETES_SERVICE_HOST));
      return new KubernetesProvider({ ...opts, kubeconfig, inCluster });
    }
    default:
      throw new ContainersError(
        'INVALID_CONFIG',
        `Unknown container provider '${(config as { provider?: unknown }).provider}': use docker or kubernetes`,
      );
  }
}

/**
 * One provider per name, created on first use and shared by every workload that names it
 * (`providers.get('docker')`); `configs` holds each provider's options.
 */
export class ContainerProviders {
  private readonly created = new Map<ProviderName, ContainerProvider>();

  constructor(
    private readonly configs: { docker?: DockerProviderOptions; kubernetes?: KubernetesProviderOptions } = {},
    private readonly env: ContainerProviderEnv = {},
  ) {}

  get(name: ProviderName): ContainerProvider {
    let provider = this.created.get(name);
    if (!provider) {
      const config =
        name === 'docker'
          ? ({ provider: 'docker', ...this.configs.docker } as const)
          : ({ provider: 'kubernetes', ...this.configs.kubernetes } as const);
      provider = createContainerProvider(config, this.env);
      this.created.set(name, provider);
    }
    return provider;
  }
}
