export {
  REGISTERED_SERVICES,
  SERVICES_BEHIND_GATEWAY,
  servicesBehindGateway,
  registeredService,
  upstreamEnvName,
  type RegisteredService,
  type RegistryRbac,
  type ServiceBehindGateway,
} from './registry';
