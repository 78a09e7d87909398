import { Module } from '@nestjs/common';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { RealtimeModule } from '../realtime/realtime.module';
import { KnowledgeStore } from './knowledge-store.service';
import { KnowledgeItemsController, SourcesController } from './sources.controller';
import { SourcesRepository } from './sources.repository';
import { SourcesService } from './sources.service';

@Module({
  imports: [RealtimeModule],
  controllers: [KnowledgeItemsController, SourcesController],
  providers: [SourcesRepository, SourcesService, KnowledgeStore, EmbeddingsService],
  exports: [SourcesService, KnowledgeStore, EmbeddingsService],
})
export class SourcesModule {}
