import { EnvelopeErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { AutostartProxyModule } from './app.module';
import { AutostartProxyConfig } from './config';

/** name, port and schema are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree). */
export const autostartProxyService: ServiceDefinition<AutostartProxyConfig> = {
  name: 'autostart-proxy',
  port: 3007,
  schema: 'autostart',
  config: AutostartProxyConfig,
  module: (config) => AutostartProxyModule.forRoot(config),
  // The spec's error shape (@platform/errors): EnvelopeErrorFilter (doc 2, part C), PlainErrorFilter (doc 1), DetailErrorFilter (part B).
  errorFilter: () => new EnvelopeErrorFilter(),
  swagger: {
    title: 'autostart-proxy',
    version: '1.0.0',
    description: 'autostart-proxy, behind the gateway at `/autostart`. Authentication, error shape and every choice made where the spec says "not shown" are described here.',
  },
};
