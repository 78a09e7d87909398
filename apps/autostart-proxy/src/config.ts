import { BaseConfig } from '@platform/platform';

/**
 * autostart-proxy's settings: BaseConfig's (PORT, DATABASE_URL, AMQP_URL, REDIS_URL, DATA_DIR, LOG_LEVEL, …)
 * and its own, validated at start with class-validator decorators; `@RequiredInProduction()` marks
 * a secret that must be set when NODE_ENV=production.
 */
export class AutostartProxyConfig extends BaseConfig {}
