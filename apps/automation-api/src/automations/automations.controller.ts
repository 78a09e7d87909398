import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { IdParam } from '../common/id.pipe';
import { AutomationsService } from './automations.service';
import { AttachDto } from './dto/attach.dto';
import { AutomationInputDto } from './dto/automation-input.dto';
import { AutomationDto, AutomationResultDto, AutomationSummaryDto, FunnelDto } from './dto/automation.dto';

@ApiTags('automations')
@AccountAuth()
@Controller('api/v1')
export class AutomationsController {
  constructor(private readonly automations: AutomationsService) {}

  @Get('automations')
  @ApiOperation({ summary: 'List automations', description: 'AutomationSummary per automation; triggered, link_sent and clicked are counted from the runs.' })
  @ApiOkResponse({ type: [AutomationSummaryDto] })
  list(@CurrentAccount() account: AccountEntity): Promise<AutomationSummaryDto[]> {
    return this.automations.list(account.id);
  }

  @Post('automations')
  @ApiOperation({
    summary: 'Create an automation',
    description:
      'New automations start with status `draft` and answer nothing until POST /automations/{id}/go_live. Defaults are applied and returned. ' +
      'Unknown properties are refused (400). Comment-only fields (media_ids, next_post, reel_caption, reel_publish_at, public_replies, skip_if_answered) ' +
      'are refused for the dm and story_reply triggers. webhook_url must be https and resolve to public addresses only.',
  })
  @ApiBody({ type: AutomationInputDto })
  @ApiCreatedResponse({ type: AutomationResultDto })
  @ApiBadRequestResponse({ type: ErrorDto, description: 'Validation error naming the field' })
  create(@CurrentAccount() account: AccountEntity, @Body() body: AutomationInputDto): Promise<AutomationResultDto> {
    return this.automations.create(account.id, body);
  }

  @Get('automations/:id')
  @ApiOperation({ summary: 'One automation' })
  @ApiOkResponse({ type: AutomationDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  get(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<AutomationDto> {
    return this.automations.get(account.id, id);
  }

  @Patch('automations/:id')
  @ApiOperation({
    summary: 'Change an automation',
    description:
      'Any AutomationInput fields; the same rules as create, checked on the merged result. `webhook_secret: "***"` keeps the stored secret. ' +
      'After go_live, `active: false` pauses and `active: true` resumes (status follows); on a draft it is only stored.',
  })
  @ApiBody({ type: AutomationInputDto })
  @ApiOkResponse({ type: AutomationResultDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  update(@CurrentAccount() account: AccountEntity, @IdParam() id: number, @Body() body: AutomationInputDto): Promise<AutomationResultDto> {
    return this.automations.update(account.id, id, body);
  }

  @Delete('automations/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an automation', description: 'Its runs are deleted with it; activity log entries stay (automation_id becomes null).' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorDto })
  remove(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<void> {
    return this.automations.remove(account.id, id);
  }

  @Post('automations/:id/go_live')
  @HttpCode(200)
  @ApiOperation({ summary: 'draft → active', description: 'The automation starts answering. 409 when it is not a draft (a paused automation uses resume).' })
  @ApiOkResponse({ type: AutomationDto })
  @ApiConflictResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  goLive(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<AutomationDto> {
    return this.automations.goLive(account.id, id);
  }

  @Post('automations/:id/pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'active → paused', description: 'Stops answering (active becomes false). Idempotent on a paused automation; 409 on a draft.' })
  @ApiOkResponse({ type: AutomationDto })
  @ApiConflictResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  pause(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<AutomationDto> {
    return this.automations.pause(account.id, id);
  }

  @Post('automations/:id/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'paused → active', description: 'Answers again (active becomes true). Idempotent on an active automation; 409 on a draft.' })
  @ApiOkResponse({ type: AutomationDto })
  @ApiConflictResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  resume(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<AutomationDto> {
    return this.automations.resume(account.id, id);
  }

  @Post('automations/:id/finish_migration')
  @HttpCode(200)
  @ApiOperation({
    summary: 'End transition mode',
    description: 'An imported automation runs without follower check, button, email and reminder until this call. 409 when not in transition mode.',
  })
  @ApiOkResponse({ type: AutomationDto })
  @ApiConflictResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  finishMigration(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<AutomationDto> {
    return this.automations.finishMigration(account.id, id);
  }

  @Post('automations/:id/attach')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Confirm the suggested reel',
    description:
      'For a waiting next_post automation whose reel_suggestion is filled: attaches it to the suggested reel (reel_status attached). ' +
      'Optional body {media_id} must equal the suggestion. 409 when there is no suggestion.',
  })
  @ApiBody({ type: AttachDto, required: false })
  @ApiOkResponse({ type: AutomationDto })
  @ApiConflictResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  attach(@CurrentAccount() account: AccountEntity, @IdParam() id: number, @Body() body: AttachDto): Promise<AutomationDto> {
    return this.automations.attach(account.id, id, body?.media_id);
  }

  @Get('automations/:id/funnel')
  @ApiOperation({ summary: 'Funnel of one automation', description: 'Counted from its runs; a counter is null when the automation has no such step.' })
  @ApiOkResponse({ type: FunnelDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  funnel(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<FunnelDto> {
    return this.automations.funnel(account.id, id);
  }

  @Get('funnel')
  @ApiOperation({
    summary: 'Funnels of all automations',
    description: 'One Funnel per automation, then a total (id null, name `all automations`, trigger `all`, active = number of live automations).',
  })
  @ApiOkResponse({ type: [FunnelDto] })
  funnels(@CurrentAccount() account: AccountEntity): Promise<FunnelDto[]> {
    return this.automations.funnels(account.id);
  }
}
