import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { PreviewDto, PreviewRequestDto } from './dto/preview.dto';
import { PreviewService } from './preview.service';

@ApiTags('preview')
@AccountAuth()
@Controller('api/v1/preview')
export class PreviewController {
  constructor(private readonly previews: PreviewService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Which automation would react, and what it would send',
    description:
      'Runs the keyword matcher over the given text, trigger and post: `match` is the winning automation (priority, then the more specific match_mode, then the older one), ' +
      '`steps` the exact messages with {username} filled. Sends nothing.',
  })
  @ApiOkResponse({ type: PreviewDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto, description: '`automation_id` names no automation of the account' })
  preview(@CurrentAccount() account: AccountEntity, @Body() body: PreviewRequestDto): Promise<PreviewDto> {
    return this.previews.preview(account.id, body);
  }
}
