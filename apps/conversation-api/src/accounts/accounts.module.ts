import { Module } from '@nestjs/common';
import { RolesModule } from '../roles/roles.module';
import { UsersModule } from '../users/users.module';
import { AccountController } from './account.controller';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { FirstAdminService } from './first-admin.service';
import { OpenAccount } from './open-account';

@Module({
  imports: [RolesModule, UsersModule],
  controllers: [AccountController],
  providers: [AccountsRepository, AccountsService, OpenAccount, FirstAdminService],
  exports: [AccountsService, OpenAccount],
})
export class AccountsModule {}
