import { Module } from '@nestjs/common';
import { AccountKeyGuard } from './account-key.guard';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';

@Module({
  providers: [AccountsRepository, AccountsService, AccountKeyGuard],
  exports: [AccountsService, AccountKeyGuard],
})
export class AccountsModule {}
