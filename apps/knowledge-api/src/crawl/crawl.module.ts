import { Module } from '@nestjs/common';
import { ProgressModule } from '../progress/progress.module';
import { SourcesModule } from '../sources/sources.module';
import { CrawlController } from './crawl.controller';
import { CrawlService } from './crawl.service';
import { CrawlWorker } from './crawl.worker';
import { QueueDueRecrawls } from './queue-due-recrawls';

@Module({
  imports: [ProgressModule, SourcesModule],
  controllers: [CrawlController],
  providers: [CrawlService, CrawlWorker, QueueDueRecrawls],
  exports: [CrawlWorker],
})
export class CrawlModule {}
