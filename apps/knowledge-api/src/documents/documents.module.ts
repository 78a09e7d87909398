import { Module } from '@nestjs/common';
import { ProgressModule } from '../progress/progress.module';
import { SourcesModule } from '../sources/sources.module';
import { DocumentsController } from './documents.controller';
import { DocumentsService } from './documents.service';
import { ProcessUpload } from './process-upload';
import { UploadsRepository } from './uploads.repository';

@Module({
  imports: [SourcesModule, ProgressModule],
  controllers: [DocumentsController],
  providers: [DocumentsService, ProcessUpload, UploadsRepository],
  exports: [ProcessUpload],
})
export class DocumentsModule {}
