import { Module } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module';
import { ProgressModule } from '../progress/progress.module';
import { ProjectsModule } from '../projects/projects.module';
import { SourcesModule } from '../sources/sources.module';
import { BackfillEmbeddings } from './backfill-embeddings';
import { CrawlController } from './crawl.controller';
import { CrawlService } from './crawl.service';
import { CrawlWorker } from './crawl.worker';
import { PageConverter } from './page-converter';
import { QueueDueRecrawls } from './queue-due-recrawls';
import { RefreshSource } from './refresh-source';

@Module({
  imports: [ProgressModule, SourcesModule, DocumentsModule, ProjectsModule],
  controllers: [CrawlController],
  providers: [CrawlService, CrawlWorker, PageConverter, QueueDueRecrawls, BackfillEmbeddings, RefreshSource],
  exports: [CrawlWorker],
})
export class CrawlModule {}
