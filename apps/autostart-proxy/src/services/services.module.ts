import { Module } from '@nestjs/common';
import { WorkloadsModule } from '../workloads/workloads.module';
import { ServicesController } from './services.controller';
import { ServicesService } from './services.service';

@Module({
  imports: [WorkloadsModule],
  controllers: [ServicesController],
  providers: [ServicesService],
})
export class ServicesModule {}
