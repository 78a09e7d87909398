import { Module } from '@nestjs/common';
import { FiscalAuthController } from './fiscal-auth.controller';
import { FiscalAuthService } from './fiscal-auth.service';
import { FiscalJwtGuard } from './fiscal-jwt.guard';
import { FiscalUsersRepository } from './fiscal-users.repository';

/** Part B: the fiscal-tracking login API under /api/v1/auth. */
@Module({
  controllers: [FiscalAuthController],
  providers: [FiscalUsersRepository, FiscalAuthService, FiscalJwtGuard],
  exports: [FiscalAuthService],
})
export class FiscalModule {}
