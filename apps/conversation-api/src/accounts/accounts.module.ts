import { Module } from '@nestjs/common';
import { RolesModule } from '../roles/roles.module';
import { UsersModule } from '../users/users.module';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { FirstAdminService } from './first-admin.service';
import { OpenAccount } from './open-account';

@Module({
  imports: [RolesModule, UsersModule],
  providers: [AccountsRepository, AccountsService, OpenAccount, FirstAdminService],
  exports: [AccountsService, OpenAccount],
})
export class AccountsModule {}
