import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import type { AutostartProxyConfig } from './config';
import { CreateOutboxTables1795511098570 } from './migrations/1795511098570-CreateOutboxTables';

/** The entities this app's repositories use (`db.repository(Entity)`), and the outbox's and inbox's. */
export const AUTOSTART_PROXY_ENTITIES = [...messagingEntities];
export const AUTOSTART_PROXY_MIGRATIONS = [CreateOutboxTables1795511098570];

/**
 * Root module, `AutostartProxyModule.forRoot(config)`. DatabaseModule (global) gives every repository the
 * `Database` helper and registers the `database` readiness check; MessagingModule gives `EventBus`
 * and `Outbox` and registers `broker`. The platform serves /healthz, /readyz, /metrics and /api/docs.
 */
@Module({})
export class AutostartProxyModule {
  static forRoot(_config: AutostartProxyConfig): DynamicModule {
    return {
      module: AutostartProxyModule,
      imports: [
        DatabaseModule.forRoot({ entities: AUTOSTART_PROXY_ENTITIES, migrations: AUTOSTART_PROXY_MIGRATIONS }),
        MessagingModule.forRoot({ outbox: true }),
        // One module per feature folder (STYLE.md 2), e.g. ItemsModule from './items/items.module'.
      ],
    };
  }
}
