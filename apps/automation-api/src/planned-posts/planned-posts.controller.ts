import { Body, Controller, Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { IdParam } from '../common/id.pipe';
import { CreatePlannedPostDto, ListPlannedPostsQueryDto, PlannedPostDto } from './dto/planned-post.dto';
import { PlannedPostsService } from './planned-posts.service';

@ApiTags('planned posts')
@AccountAuth()
@Controller('api/v1/planned_posts')
export class PlannedPostsController {
  constructor(private readonly posts: PlannedPostsService) {}

  @Get()
  @ApiOperation({ summary: 'Planned posts', description: 'Newest first, with per-target status; optional status filter.' })
  @ApiOkResponse({ type: [PlannedPostDto] })
  @ApiBadRequestResponse({ type: ErrorDto })
  list(@CurrentAccount() account: AccountEntity, @Query() query: ListPlannedPostsQueryDto): Promise<PlannedPostDto[]> {
    return this.posts.list(account.id, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Plan one post to several platforms',
    description:
      'Targets instagram (a reel through the content-publishing flow) and/or youtube (YouTube Data API, resumable upload). ' +
      'idempotency_key: a repeated key answers 200 with the first post and duplicate: true, and creates nothing. Status: open until every target ended, ' +
      'then published, partial (some targets failed) or failed.',
  })
  @ApiCreatedResponse({ type: PlannedPostDto, description: 'Created' })
  @ApiOkResponse({ type: PlannedPostDto, description: 'The post an earlier request with this idempotency_key created (duplicate: true)' })
  @ApiBadRequestResponse({ type: ErrorDto })
  async create(@CurrentAccount() account: AccountEntity, @Body() body: CreatePlannedPostDto, @Res({ passthrough: true }) res: Response): Promise<PlannedPostDto> {
    const post = await this.posts.create(account.id, body);
    if (post.duplicate) res.status(200);
    return post;
  }

  @Get(':id')
  @ApiOperation({ summary: 'One planned post' })
  @ApiOkResponse({ type: PlannedPostDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  get(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<PlannedPostDto> {
    return this.posts.get(account.id, id);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a planned post', description: 'Possible while no target started publishing; 409 afterwards. Idempotent.' })
  @ApiOkResponse({ type: PlannedPostDto })
  @ApiConflictResponse({ type: ErrorDto })
  @ApiNotFoundResponse({ type: ErrorDto })
  cancel(@CurrentAccount() account: AccountEntity, @IdParam() id: number): Promise<PlannedPostDto> {
    return this.posts.cancel(account.id, id);
  }
}
