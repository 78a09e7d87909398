import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule, type EntityClass } from '@platform/database';
import type { AutostartProxyConfig } from './config';
import { CreateWorkloads1795511098570 } from './migrations/1795511098570-CreateWorkloads';
import { AddSessions1795900000000 } from './migrations/1795900000000-AddSessions';
import { RoutingModule } from './routing/routing.module';
import { SablierModule } from './sablier/sablier.module';
import { ServicesModule } from './services/services.module';

/** No entities: the repository speaks SQL (conditional updates). */
export const AUTOSTART_PROXY_ENTITIES: EntityClass[] = [];
export const AUTOSTART_PROXY_MIGRATIONS = [CreateWorkloads1795511098570, AddSessions1795900000000];

/**
 * Root module, `AutostartProxyModule.forRoot(config)`. DatabaseModule (global) holds the state the
 * replicas share (services, request history) and registers the `database` readiness check. No
 * broker: the proxy publishes and consumes no events. The platform serves /healthz, /readyz,
 * /metrics and /api/docs.
 */
@Module({})
export class AutostartProxyModule {
  static forRoot(_config: AutostartProxyConfig): DynamicModule {
    return {
      module: AutostartProxyModule,
      imports: [
        DatabaseModule.forRoot({ entities: AUTOSTART_PROXY_ENTITIES, migrations: AUTOSTART_PROXY_MIGRATIONS }),
        ServicesModule,
        SablierModule,
        RoutingModule,
      ],
    };
  }
}
