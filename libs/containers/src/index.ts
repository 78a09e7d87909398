export * from './provider';
export { parseDockerHost, DEFAULT_DOCKER_HOST, type DockerEndpoint } from './docker/docker-host';
export { parseDockerTarget, describeContainer, summarizeContainers, type DockerTarget, type InspectedContainer } from './docker/docker-state';
export { DockerProvider, type DockerProviderOptions, type ContainerEvent, type ListedContainer, type WatchOptions } from './docker/docker-provider';
export { parseKubernetesTarget, describeWorkload, type KubernetesTarget, type KubernetesKind, type ScalableWorkload } from './kubernetes/kubernetes-state';
export { KubernetesProvider, DEFAULT_REPLICAS_ANNOTATION, type KubernetesProviderOptions, type ListedWorkload } from './kubernetes/kubernetes-provider';
export { createContainerProvider, ContainerProviders, type ContainerProviderConfig, type ContainerProviderEnv } from './create-provider';
