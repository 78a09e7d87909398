import { Module } from '@nestjs/common';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { ProgressModule } from '../progress/progress.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { DeleteSource } from './delete-source';
import { KnowledgeStore } from './knowledge-store.service';
import { KnowledgeItemsController, SourcesController } from './sources.controller';
import { SourcesRepository } from './sources.repository';
import { SourcesService } from './sources.service';

@Module({
  imports: [RealtimeModule, ProgressModule],
  controllers: [KnowledgeItemsController, SourcesController],
  providers: [SourcesRepository, SourcesService, KnowledgeStore, EmbeddingsService, DeleteSource],
  exports: [SourcesService, KnowledgeStore, EmbeddingsService],
})
export class SourcesModule {}
