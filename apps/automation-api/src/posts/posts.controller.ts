import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountAuth, CurrentAccount } from '../accounts/account-key.guard';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ErrorDto } from '../common/error.dto';
import { CommentDto, ListCommentsQueryDto, ListPostsQueryDto, MediaIdPipe, PostDto } from './dto/post.dto';
import { PostsService } from './posts.service';

@ApiTags('posts')
@AccountAuth()
@Controller('api/v1/posts')
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
  @ApiOperation({ summary: 'Latest posts and reels with attached automations' })
  @ApiOkResponse({ type: [PostDto] })
  @ApiBadRequestResponse({ type: ErrorDto, description: 'limit outside 1..50' })
  @ApiBadGatewayResponse({ type: ErrorDto, description: 'The social platform API failed' })
  list(@CurrentAccount() account: AccountEntity, @Query() query: ListPostsQueryDto): Promise<PostDto[]> {
    return this.posts.list(account, query.limit ?? 12);
  }

  @Get(':id/comments')
  @ApiOperation({
    summary: 'Comments of a post',
    description: 'Newest first, with answered / answered_by: `automation-api` when this service replied or sent a DM, `other` when the account replied otherwise, else null.',
  })
  @ApiOkResponse({ type: [CommentDto] })
  @ApiBadRequestResponse({ type: ErrorDto, description: 'limit outside 1..100, or an id that cannot be a post id' })
  @ApiNotFoundResponse({ type: ErrorDto, description: 'The platform does not know the post (or it belongs to another account)' })
  @ApiBadGatewayResponse({ type: ErrorDto, description: 'The social platform API failed' })
  comments(@CurrentAccount() account: AccountEntity, @Param('id', MediaIdPipe) id: string, @Query() query: ListCommentsQueryDto): Promise<CommentDto[]> {
    return this.posts.comments(account, id, query.limit ?? 50);
  }
}
