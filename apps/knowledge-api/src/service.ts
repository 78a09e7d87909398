import { EnvelopeErrorFilter } from '@platform/errors';
import type { ServiceDefinition } from '@platform/platform';
import { KnowledgeApiModule } from './app.module';
import { KnowledgeApiConfig } from './config';

/** name, port and schema are this app's line in services.json (tools/checks/registry.spec.ts checks that they agree). */
export const knowledgeApiService: ServiceDefinition<KnowledgeApiConfig> = {
  name: 'knowledge-api',
  port: 3003,
  schema: 'knowledge',
  config: KnowledgeApiConfig,
  module: (config) => KnowledgeApiModule.forRoot(config),
  // The spec's error shape (@platform/errors): EnvelopeErrorFilter (doc 2, part C), PlainErrorFilter (doc 1), DetailErrorFilter (part B).
  errorFilter: () => new EnvelopeErrorFilter(),
  swagger: {
    title: 'knowledge-api',
    version: '1.0.0',
    description: 'knowledge-api, behind the gateway at `/knowledge`. Authentication, error shape and every choice made where the spec says "not shown" are described here.',
  },
};
