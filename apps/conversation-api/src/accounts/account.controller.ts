import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { AccountsService } from './accounts.service';
import { AccountDto, accountView, UpdateAccountDto } from './dto/account.dto';

/** The caller's account: its settings are read by every user, changed by administrators. */
@ApiTags('account')
@Controller('api/v1/account')
export class AccountController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @RequirePermission()
  @ApiOperation({ summary: 'The caller’s account: name, time zone, business hours, out-of-office reply' })
  @ApiOkEnvelope(AccountDto)
  async get(@CurrentPrincipal() p: Principal) {
    return accountView(await this.accounts.settings(p.accountId));
  }

  @Patch()
  @RequirePermission('admin')
  @ApiOperation({
    summary: 'Change the account’s settings',
    description:
      'Administrators only (the spec names no permission for it). `business_hours` replaces the whole week (recipes’ `business_hours` condition reads it on the wall clock of `time_zone`, daylight-saving time included); 422 for an unknown time zone, a close not after its open, or an enabled out-of-office reply without a message.',
  })
  @ApiOkEnvelope(AccountDto)
  async update(@CurrentPrincipal() p: Principal, @Body() body: UpdateAccountDto) {
    return accountView(await this.accounts.updateSettings(p.accountId, body));
  }
}
