export { BaseConfig, LOG_LEVELS, NODE_ENVS, type LogLevel, type NodeEnv } from './config/base.config';
export { loadConfig, ConfigValidationError, type ConfigProblem } from './config/load-config';
export { RequiredInProduction, requiredInProduction } from './config/required-in-production';
export { HealthRegistry, type HealthCheckOptions, type HealthCheckResult, type ReadinessReport } from './health/health.registry';
export { MetricsService } from './metrics/metrics.service';
export { REDACTED_PATHS, requestIdFrom } from './logging/logging';
export { PlatformModule } from './platform.module';
export { SERVICE_NAME, SERVICE_ENV, SERVICE_MODE, MIGRATION_RUNNER, type MigrationRunner, type ServiceMode } from './tokens';
export type { ServiceDefinition, ServiceCommand, SwaggerDefinition } from './service-definition';
export { PlatformValidationPipe, PLATFORM_VALIDATION } from './http/validation';
export { createServiceApp, loadServiceConfig, type CreateServiceAppOptions, type ServiceApp } from './create-service-app';
export { startService, closeGracefully, DRAIN_TIMEOUT_MS, type RunningService, type StartServiceOptions } from './start-service';
export { runService, migrate, usage, type RunServiceOptions } from './run-service';
export { RejectNulPipe, MAX_JSON_DEPTH, firstTooDeep } from './http/input-safety';
export { installRawRoutes, type RawRoute, type RawExchange, type RawRoutesOptions, jsonObjectOf } from './http/raw-routes';
export { ExpressAnswers, type ExpressSettings } from './http/express-answers';
export { BodyLimit, BODY_LIMIT_METADATA, DEFAULT_BODY_LIMIT } from './http/body-limits';
export {
  securityHeaders,
  pageCsp,
  pageSecurityHeaders,
  inlineContentOf,
  PLATFORM_CSP,
  BASE_SECURITY_HEADERS,
  type CspDirectives,
  type SecurityHeadersOptions,
} from './http/security-headers';
export { applyServerTimeouts, serverTimeoutsOf, DEFAULT_SERVER_TIMEOUTS, type ServerTimeouts } from './http/server-timeouts';
