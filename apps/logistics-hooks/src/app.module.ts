import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import { RateLimitModule } from '@platform/rate-limit';
import { AccessModule } from './access/access.module';
import type { LogisticsHooksConfig } from './config';
import { AuditsModule } from './audits/audits.module';
import { BatchTrackingModule } from './batch-tracking/batch-tracking.module';
import { CrmModule } from './crm/crm.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { ErrorReportsModule } from './error-reports/error-reports.module';
import { InvoicesModule } from './invoices/invoices.module';
import { LlmModule } from './llm/llm.module';
import { CreateOutboxTables1795511023859 } from './migrations/1795511023859-CreateOutboxTables';
import { CreateTasksAndErrors1795511100000 } from './migrations/1795511100000-CreateTasksAndErrors';
import { CreateRevokedSessions1795511200000 } from './migrations/1795511200000-CreateRevokedSessions';
import { TaskDedupeAndRefinement1795511300000 } from './migrations/1795511300000-TaskDedupeAndRefinement';
import { CreateAnAudits1795511700000 } from './migrations/1795511700000-CreateAnAudits';
import { CreateAccountsPayable1795511600000 } from './migrations/1795511600000-CreateAccountsPayable';
import { CreateCrmObjects1795511500000 } from './migrations/1795511500000-CreateCrmObjects';
import { CreateOceanTrackingCache1795511400000 } from './migrations/1795511400000-CreateOceanTrackingCache';
import { OceanTrackingModule } from './ocean-tracking/ocean-tracking.module';
import { PortalModule } from './portal/portal.module';
import { TasksModule } from './tasks/tasks.module';

/** The entities this app's repositories use (`db.repository(Entity)`), and the outbox's and inbox's. */
export const LOGISTICS_HOOKS_ENTITIES = [...messagingEntities];
export const LOGISTICS_HOOKS_MIGRATIONS = [
  CreateOutboxTables1795511023859, CreateTasksAndErrors1795511100000, CreateRevokedSessions1795511200000,
  TaskDedupeAndRefinement1795511300000,
  CreateOceanTrackingCache1795511400000,
  CreateCrmObjects1795511500000,
  CreateAccountsPayable1795511600000,
  CreateAnAudits1795511700000,
];

/**
 * Root module, `LogisticsHooksModule.forRoot(config)`. DatabaseModule (global) gives every repository the
 * `Database` helper, the services `Transactions`, and registers the `database` readiness check; MessagingModule gives `EventBus`
 * and `Outbox` and registers `broker`; RateLimitModule counts the public chat per IP (Redis when
 * REDIS_URL is set). The platform serves /healthz, /readyz, /metrics and /api/docs.
 */
@Module({})
export class LogisticsHooksModule {
  static forRoot(config: LogisticsHooksConfig): DynamicModule {
    const tasks = TasksModule.forRoot(config);
    return {
      module: LogisticsHooksModule,
      imports: [
        DatabaseModule.forRoot({ entities: LOGISTICS_HOOKS_ENTITIES, migrations: LOGISTICS_HOOKS_MIGRATIONS }),
        MessagingModule.forRoot({ outbox: true }),
        RateLimitModule.forRoot({ keyPrefix: `${config.REDIS_KEY_PREFIX}rl:` }),
        AccessModule,
        LlmModule,
        tasks,
        ErrorReportsModule,
        OceanTrackingModule,
        BatchTrackingModule.forRoot(config),
        CrmModule.forRoot(config),
        InvoicesModule,
        AuditsModule,
        DashboardModule,
        PortalModule.forRoot(tasks),
      ],
    };
  }
}
