import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import type { KnowledgeApiConfig } from './config';
import { CreateOutboxTables1795511016147 } from './migrations/1795511016147-CreateOutboxTables';

/** The entities this app's repositories use (`db.repository(Entity)`), and the outbox's and inbox's. */
export const KNOWLEDGE_API_ENTITIES = [...messagingEntities];
export const KNOWLEDGE_API_MIGRATIONS = [CreateOutboxTables1795511016147];

/**
 * Root module, `KnowledgeApiModule.forRoot(config)`. DatabaseModule (global) gives every repository the
 * `Database` helper and registers the `database` readiness check; MessagingModule gives `EventBus`
 * and `Outbox` and registers `broker`. The platform serves /healthz, /readyz, /metrics and /api/docs.
 */
@Module({})
export class KnowledgeApiModule {
  static forRoot(_config: KnowledgeApiConfig): DynamicModule {
    return {
      module: KnowledgeApiModule,
      imports: [
        DatabaseModule.forRoot({ entities: KNOWLEDGE_API_ENTITIES, migrations: KNOWLEDGE_API_MIGRATIONS }),
        MessagingModule.forRoot({ outbox: true }),
        // One module per feature folder (STYLE.md 2), e.g. ItemsModule from './items/items.module'.
      ],
    };
  }
}
