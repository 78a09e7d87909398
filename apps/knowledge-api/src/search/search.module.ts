import { Module } from '@nestjs/common';
import { SourcesModule } from '../sources/sources.module';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

@Module({
  imports: [SourcesModule],
  controllers: [SearchController],
  providers: [SearchService],
})
export class SearchModule {}
