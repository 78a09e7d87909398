import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { IdParam } from '../common/id.pipe';
import { CreateReelDto, ListReelsQueryDto, ReelDto } from './dto/reel.dto';
import { ReelsService } from './reels.service';

@ApiTags('reels')
@AccountAuth()
@Controller('api/v1/reels')
export class ReelsController {
  constructor(private readonly reels: ReelsService) {}

  @Get()
  @ApiOperation({ summary: 'Scheduled reels', description: 'Newest first; optional status filter.' })
  @ApiOkResponse({ type: [ReelDto] })
  @ApiBadRequestResponse({ type: ErrorDto })
  list(@CurrentAccount() account: AccountEntity, @Query() query: ListReelsQueryDto): Promise<ReelDto[]> {
    return this.reels.list(account.id, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Schedule a reel',
    description:
      'Published at publish_at through the platform’s content-publishing flow (container → status → publish). source: {video_url} (the platform fetches it) ' +
      'or {video_id} of POST /videos (uploaded to the platform with the resumable protocol). automation_id: a waiting next_post automation that attaches to exactly this reel.',
  })
  @ApiCreatedResponse({ type: ReelDto })
  @ApiBadRequestResponse({ type: ErrorDto })
  @ApiConflictResponse({ type: ErrorDto, description: 'The automation no longer waits or is bound to another reel' })
  create(@CurrentAccount() account: AccountEntity, @Body() body: CreateReelDto): Promise<ReelDto> {
    return this.reels.create(account.id, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One scheduled reel' })
  @ApiOkResponse({ type: ReelDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  get(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<ReelDto> {
    return this.reels.get(account.id, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a scheduled reel', description: 'Possible until publishing starts (status scheduled, uploading, processing, ready); 409 afterwards. Idempotent.' })
  @ApiOkResponse({ type: ReelDto })
  @ApiConflictResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  cancel(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<ReelDto> {
    return this.reels.cancel(account.id, id);
  }
}
