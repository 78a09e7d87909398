import { Module } from '@nestjs/common';
import { SablierModule } from '../sablier/sablier.module';
import { WorkloadsModule } from '../workloads/workloads.module';
import { AutostartRouter } from './autostart-router';

@Module({
  imports: [WorkloadsModule, SablierModule],
  providers: [AutostartRouter],
  exports: [AutostartRouter],
})
export class RoutingModule {}
