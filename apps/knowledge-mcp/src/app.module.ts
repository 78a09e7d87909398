import { Module, type DynamicModule } from '@nestjs/common';
import type { KnowledgeMcpConfig } from './config';
import { McpModule } from './mcp/mcp.module';

/**
 * Root module, `KnowledgeMcpModule.forRoot(config)`. No database (services.json: "database": null)
 * and no events: everything it reads or writes goes through knowledge-api's REST, so its only
 * readiness check is `knowledge-api`. The platform serves /healthz, /readyz, /metrics and /api/docs.
 */
@Module({})
export class KnowledgeMcpModule {
  static forRoot(_config: KnowledgeMcpConfig): DynamicModule {
    return {
      module: KnowledgeMcpModule,
      imports: [McpModule],
    };
  }
}
