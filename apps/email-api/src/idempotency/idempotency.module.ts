import { Module } from '@nestjs/common';
import { IdempotencyPruner } from './idempotency-pruner';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyPruner],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
