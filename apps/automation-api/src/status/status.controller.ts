import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { StatusDto } from './status.dto';
import { StatusService } from './status.service';

@ApiTags('status')
@AccountAuth()
@Controller('api/v1/status')
export class StatusController {
  constructor(private readonly status: StatusService) {}

  @Get()
  @ApiOperation({
    summary: 'Connection state, token expiry and counts',
    description: 'Checks the platform live. Answers 200 also when the platform fails: the error text is in `problem` (or `webhook_problem`).',
  })
  @ApiOkResponse({ type: StatusDto })
  get(@CurrentAccount() account: AccountEntity): Promise<StatusDto> {
    return this.status.status(account);
  }
}
