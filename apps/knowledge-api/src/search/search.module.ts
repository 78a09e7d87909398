import { Module } from '@nestjs/common';
import { SourcesModule } from '../sources/sources.module';
import { SearchController } from './search.controller';
import { RerankService } from './rerank.service';
import { SearchService } from './search.service';

@Module({
  imports: [SourcesModule],
  controllers: [SearchController],
  providers: [SearchService, RerankService],
  exports: [RerankService],
})
export class SearchModule {}
