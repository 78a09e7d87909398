import { Module } from '@nestjs/common';
import { WorkloadsModule } from '../workloads/workloads.module';
import { AutostartRouter } from './autostart-router';

@Module({
  imports: [WorkloadsModule],
  providers: [AutostartRouter],
  exports: [AutostartRouter],
})
export class RoutingModule {}
