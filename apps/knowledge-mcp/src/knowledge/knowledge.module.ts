import { Module, type OnModuleInit } from '@nestjs/common';
import { HealthRegistry } from '@platform/platform';
import { KnowledgeApiClient } from './knowledge-api.client';

/** knowledge-api's REST client, and the `knowledge-api` readiness check (its /healthz answers). */
@Module({
  providers: [KnowledgeApiClient],
  exports: [KnowledgeApiClient],
})
export class KnowledgeModule implements OnModuleInit {
  constructor(
    private readonly health: HealthRegistry,
    private readonly api: KnowledgeApiClient,
  ) {}

  onModuleInit(): void {
    this.health.register('knowledge-api', async () => {
      await this.api.get('/healthz');
    });
  }
}
