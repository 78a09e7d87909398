import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import type { LogisticsHooksConfig } from './config';
import { CreateOutboxTables1795511023859 } from './migrations/1795511023859-CreateOutboxTables';

/** The entities this app's repositories use (`db.repository(Entity)`), and the outbox's and inbox's. */
export const LOGISTICS_HOOKS_ENTITIES = [...messagingEntities];
export const LOGISTICS_HOOKS_MIGRATIONS = [CreateOutboxTables1795511023859];

/**
 * Root module, `LogisticsHooksModule.forRoot(config)`. DatabaseModule (global) gives every repository the
 * `Database` helper and registers the `database` readiness check; MessagingModule gives `EventBus`
 * and `Outbox` and registers `broker`. The platform serves /healthz, /readyz, /metrics and /api/docs.
 */
@Module({})
export class LogisticsHooksModule {
  static forRoot(_config: LogisticsHooksConfig): DynamicModule {
    return {
      module: LogisticsHooksModule,
      imports: [
        DatabaseModule.forRoot({ entities: LOGISTICS_HOOKS_ENTITIES, migrations: LOGISTICS_HOOKS_MIGRATIONS }),
        MessagingModule.forRoot({ outbox: true }),
        // One module per feature folder (STYLE.md 2), e.g. ItemsModule from './items/items.module'.
      ],
    };
  }
}
