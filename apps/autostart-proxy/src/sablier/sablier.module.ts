import { Module } from '@nestjs/common';
import { WorkloadsModule } from '../workloads/workloads.module';
import { SablierController } from './sablier.controller';
import { SablierService } from './sablier.service';

/** Sablier's HTTP API (for its reverse-proxy plugins) over the managed services. */
@Module({
  imports: [WorkloadsModule],
  controllers: [SablierController],
  providers: [SablierService],
  exports: [SablierService],
})
export class SablierModule {}
