import { Module } from '@nestjs/common';
import { RolesModule } from '../roles/roles.module';
import { UsersModule } from '../users/users.module';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { FirstAdminService } from './first-admin.service';

@Module({
  imports: [RolesModule, UsersModule],
  providers: [AccountsRepository, AccountsService, FirstAdminService],
  exports: [AccountsService, AccountsRepository],
})
export class AccountsModule {}
