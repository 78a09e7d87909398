import { EnvelopeErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { LogisticsHooksModule } from './app.module';
import { LogisticsHooksConfig } from './config';

/** name, port and schema are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree). */
export const logisticsHooksService: ServiceDefinition<LogisticsHooksConfig> = {
  name: 'logistics-hooks',
  port: 3008,
  schema: 'logistics',
  config: LogisticsHooksConfig,
  module: (config) => LogisticsHooksModule.forRoot(config),
  // The spec's error shape (@platform/errors): EnvelopeErrorFilter (doc 2, part C), PlainErrorFilter (doc 1), DetailErrorFilter (part B).
  errorFilter: () => new EnvelopeErrorFilter(),
  swagger: {
    title: 'logistics-hooks',
    version: '1.0.0',
    description: 'logistics-hooks, behind the gateway at `/logistics`. Authentication, error shape and every choice made where the spec says "not shown" are described here.',
  },
};
