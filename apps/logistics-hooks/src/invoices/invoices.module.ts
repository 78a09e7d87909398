import { Module, RequestMethod, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { ApRecordsRepository } from './ap-records.repository';
import { InvoiceUploadMiddleware } from './invoice-upload.middleware';
import { InvoicesController } from './invoices.controller';
import { InvoicesRepository } from './invoices.repository';
import { InvoicesService } from './invoices.service';

/** `POST /ap-invoice-process` and `POST /ap-expectations`: accounts-payable invoices and what they are checked against. */
@Module({
  controllers: [InvoicesController],
  providers: [InvoicesService, InvoicesRepository, ApRecordsRepository, InvoiceUploadMiddleware],
})
export class InvoicesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(InvoiceUploadMiddleware).forRoutes({ path: 'ap-invoice-process', method: RequestMethod.POST });
  }
}
