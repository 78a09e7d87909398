import { Module } from '@nestjs/common';
import { ErrorEventsConsumer } from './error-events.consumer';
import { ErrorRecordsRepository } from './error-records.repository';
import { ErrorReportsController } from './error-reports.controller';
import { ErrorReportsService } from './error-reports.service';
import { ErrorsGateway } from './errors.gateway';

/** Error monitoring: reports, the admin endpoints and the `/errors` Socket.IO namespace. */
@Module({
  controllers: [ErrorReportsController],
  providers: [ErrorReportsService, ErrorRecordsRepository, ErrorsGateway, ErrorEventsConsumer],
  exports: [ErrorReportsService],
})
export class ErrorReportsModule {}
