import { Module } from '@nestjs/common';
import { ChatModule } from '../chat/chat.module';
import { ContextualEmbeddings } from '../embeddings/contextual-embeddings';
import { EmbeddingsService } from '../embeddings/embeddings.service';
import { ProgressModule } from '../progress/progress.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { DeleteSource } from './delete-source';
import { KnowledgeStore } from './knowledge-store.service';
import { KnowledgeItemsController, SourcesController } from './sources.controller';
import { SourcesRepository } from './sources.repository';
import { SourcesService } from './sources.service';

@Module({
  imports: [RealtimeModule, ProgressModule, ChatModule],
  controllers: [KnowledgeItemsController, SourcesController],
  providers: [SourcesRepository, SourcesService, KnowledgeStore, EmbeddingsService, ContextualEmbeddings, DeleteSource],
  exports: [SourcesService, KnowledgeStore, EmbeddingsService, ContextualEmbeddings],
})
export class SourcesModule {}
