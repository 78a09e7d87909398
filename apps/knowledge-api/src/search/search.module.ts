import { Module } from '@nestjs/common';
import { SourcesModule } from '../sources/sources.module';
import { SearchController } from './search.controller';
import { RerankService } from './rerank.service';
import { RetrievalSettings } from './retrieval-settings.service';
import { SearchService } from './search.service';

@Module({
  imports: [SourcesModule],
  controllers: [SearchController],
  providers: [SearchService, RerankService, RetrievalSettings],
  exports: [RerankService, RetrievalSettings],
})
export class SearchModule {}
