import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { DatabaseModule, type MigrationClass } from '@platform/database';
import { messagingEntities, MessagingModule } from '@platform/messaging';
import { RedisModule } from '@platform/rate-limit';
import { ApiKeyGuard } from './common/api-key';
import type { KnowledgeApiConfig } from './config';
import { CrawlModule } from './crawl/crawl.module';
import { DocumentsModule } from './documents/documents.module';
import { HealthController } from './health/health.controller';
import { CreateOutboxTables1795511016147 } from './migrations/1795511016147-CreateOutboxTables';
import { KnowledgeTables1795511100000 } from './migrations/1795511100000-KnowledgeTables';
import { chunksEmbeddingIndex } from './migrations/1795511200000-ChunksEmbeddingIndex';
import { requirePgvector, vectorStoreUpgrade } from './migrations/1795511300000-VectorStoreUpgrade';
import { StableSourceIds1795511500000 } from './migrations/1795511500000-StableSourceIds';
import { ProjectsAndTasks1795852001624 } from './migrations/1795852001624-ProjectsAndTasks';
import { McpModule } from './mcp/mcp.module';
import { ProgressModule } from './progress/progress.module';
import { ProjectsModule } from './projects/projects.module';
import { RealtimeModule } from './realtime/realtime.module';
import { SearchModule } from './search/search.module';
import { SourcesModule } from './sources/sources.module';

/** The entities this app's repositories use (`db.repository(Entity)`), and the outbox's and inbox's. */
export const KNOWLEDGE_API_ENTITIES = [...messagingEntities];

/**
 * The migrations, some of which follow the configuration the app (or `node main.js migrate`) runs
 * with: the HNSW index of the embeddings has the dimension EMBEDDINGS_DIMENSIONS gives.
 */
export function knowledgeApiMigrations(config: Pick<KnowledgeApiConfig, 'EMBEDDINGS_DIMENSIONS' | 'KNOWLEDGE_VECTOR_STORE'>): MigrationClass[] {
  return [
    CreateOutboxTables1795511016147,
    KnowledgeTables1795511100000,
    ...(config.EMBEDDINGS_DIMENSIONS ? [chunksEmbeddingIndex(config.EMBEDDINGS_DIMENSIONS)] : []),
    vectorStoreUpgrade(config.EMBEDDINGS_DIMENSIONS),
    ...(config.KNOWLEDGE_VECTOR_STORE === 'pgvector' ? [requirePgvector(config.EMBEDDINGS_DIMENSIONS)] : []),
    StableSourceIds1795511500000,
    ProjectsAndTasks1795852001624,
  ];
}

/**
 * Root module, `KnowledgeApiModule.forRoot(config)`. DatabaseModule (global) gives every repository the
 * `Database` helper and registers the `database` readiness check; MessagingModule gives `EventBus`
 * and `Outbox` and registers `broker`; RedisModule registers `redis` when REDIS_URL is set.
 * The platform serves /healthz, /readyz, /metrics and /api/docs.
 */
@Module({})
export class KnowledgeApiModule {
  static forRoot(config: KnowledgeApiConfig): DynamicModule {
    return {
      module: KnowledgeApiModule,
      imports: [
        DatabaseModule.forRoot({ entities: KNOWLEDGE_API_ENTITIES, migrations: knowledgeApiMigrations(config) }),
        MessagingModule.forRoot({ outbox: true }),
        RedisModule,
        RealtimeModule,
        SourcesModule,
        ProgressModule,
        CrawlModule,
        DocumentsModule,
        SearchModule,
        McpModule,
        ProjectsModule,
      ],
      controllers: [HealthController],
      providers: [{ provide: APP_GUARD, useClass: ApiKeyGuard }],
    };
  }
}
