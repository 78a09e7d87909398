// The registry of services, services.json at the workspace root (docs/lib-contracts.md, "Adding a
// service"), typed for the TypeScript code that reads it: the gateway's routes and upstream variables,
// `npm start`, the bench and the checks of tools/checks. deploy/apps.cjs (plain CommonJS, run by
// `node deploy/generate.cjs`) reads and validates the same file for compose and Kubernetes.
//
// The JSON is required at run time: the build copies it to dist/out/services.json, where the
// compiled lib finds it at the same relative path (and the image carries it).
import registry from '../../../services.json';

/** `rbac` of a registry line: the app drives workloads through the Kubernetes API (@platform/containers). */
export type RegistryRbac = true | { readonly deployments?: readonly string[]; readonly statefulsets?: readonly string[] };

/** One line of services.json. */
export interface RegisteredService {
  /** app name, the folder under apps/, e.g. 'auth-api' */
  readonly name: string;
  /** default port */
  readonly port: number;
  /** path prefix on the gateway, e.g. '/auth'; null for the gateway itself */
  readonly prefix: string | null;
  /** the app's own database, also its schema on the embedded instance; null: none */
  readonly database: string | null;
  /** stateless API scaled by CPU (an HPA, several replicas); false: one replica */
  readonly hpa: boolean;
  /** RBAC to drive workloads through the Kubernetes API; absent: none */
  readonly rbac?: RegistryRbac;
  /** extra environment of the app's Deployment and compose service */
  readonly env?: Readonly<Record<string, string>>;
  /** a second Deployment of the same image with extra environment */
  readonly worker?: { readonly env?: Readonly<Record<string, string>>; readonly terminationGracePeriodSeconds?: number };
  /** ConfigMaps the operator provides: name → mount path */
  readonly configMaps?: Readonly<Record<string, string>>;
}

/** A service behind the gateway: its name, its gateway prefix and its default port. */
export interface ServiceBehindGateway {
  /** app name, e.g. 'auth-api' */
  readonly name: string;
  /** path prefix on the gateway, e.g. '/auth' */
  readonly prefix: string;
  /** default port of the service */
  readonly port: number;
}

/** Every line of services.json, in registry order. */
export const REGISTERED_SERVICES: readonly RegisteredService[] = registry.services as RegisteredService[];

/** Every registered service that has a gateway prefix, in registry order. */
export const SERVICES_BEHIND_GATEWAY: readonly ServiceBehindGateway[] = servicesBehindGateway(REGISTERED_SERVICES);

/** The services of `services` that have a gateway prefix, as the gateway routes them. */
export function servicesBehindGateway(services: readonly RegisteredService[]): ServiceBehindGateway[] {
  return services.flatMap(({ name, prefix, port }) => (prefix ? [{ name, prefix, port }] : []));
}

/** The registry line of an app, or undefined when it is not registered. */
export function registeredService(name: string): RegisteredService | undefined {
  return REGISTERED_SERVICES.find((service) => service.name === name);
}

/**
 * The gateway's variable holding a service's upstream origin: 'auth-api' → 'GATEWAY_UPSTREAM_AUTH_API'.
 * The gateway reads it, `npm start` and the bench set it (deploy/generate.cjs renders the same names
 * into compose and the gateway's ConfigMap; tools/checks/registry.spec.ts holds them to this rule).
 */
export function upstreamEnvName(serviceName: string): `GATEWAY_UPSTREAM_${string}` {
  return `GATEWAY_UPSTREAM_${serviceName.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
}
