import { Body, Controller, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { ImportRequestDto, ImportResultDto } from './dto/import.dto';
import { ImportsService } from './imports.service';

@ApiTags('automations')
@AccountAuth()
@Controller('api/v1/automations/import')
export class ImportsController {
  constructor(private readonly imports: ImportsService) {}

  @Post()
  @ApiOperation({
    summary: 'Import automations and contacts from another tool',
    description:
      'All or nothing. Automations are validated like POST /automations and created as drafts with origin `import`, imported_from = source and ' +
      'transition_mode on (no follower check, button, email or reminder until finish_migration). Contacts are merged by ig_id and keep imported_from.',
  })
  @ApiCreatedResponse({ type: ImportResultDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  import(@CurrentAccount() account: AccountEntity, @Body() body: ImportRequestDto): Promise<ImportResultDto> {
    return this.imports.import(account.id, body);
  }
}
