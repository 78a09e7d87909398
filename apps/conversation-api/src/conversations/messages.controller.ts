import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiPageEnvelope } from '@platform/envelopes';
import { ApiErrorAnswer, RequirePermission } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { RawResponse } from '../common/envelope.interceptor';
import { pageOf } from '../common/pagination';
import { MessageHitDto, messageHitView, MessagePageDto, MessagePageQueryDto, messagePageView, SearchMessagesQueryDto } from './dto/message-browsing.dto';
import { MessageBrowsing } from './message-browsing.service';

@ApiTags('conversations')
@Controller('api/v1')
export class MessagesController {
  constructor(private readonly browsing: MessageBrowsing) {}

  @Get('conversations/:id/messages')
  @RawResponse()
  @RequirePermission('conversations:read')
  @ApiOperation({
    summary: "A page of the conversation's messages (cursor paging)",
    description:
      'Oldest first. Without a cursor: the latest `limit` (default 50, at most 100). `before=<meta.older>` gives the page before, `after=<meta.newer>` the messages after (keep the last `newer` to poll for new messages). ' +
      'Cursors are keyset positions (time and id of a message), so pages neither skip nor repeat messages while new ones arrive. `GET /conversations/{id}` shows the latest 200 only. ' +
      'Not shown in the spec: the meta of a cursor page is `{total, limit, older, newer, has_newer}` instead of `{total, page, limit}`. 400 `INVALID_CURSOR` for a cursor of another conversation.',
  })
  @ApiOkResponse({ type: MessagePageDto })
  @ApiErrorAnswer(404, '`CONVERSATION_NOT_FOUND`: no such conversation in the caller\'s account, or in a channel the caller (not an administrator) is no member of')
  async page(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Query() q: MessagePageQueryDto): Promise<MessagePageDto> {
    return messagePageView(await this.browsing.page(p, id, { before: q.before, after: q.after, limit: q.limit ?? 50 }));
  }

  @Get('search/messages')
  @RequirePermission('conversations:read')
  @ApiOperation({
    summary: 'Full-text search over messages',
    description:
      'The texts of the messages (private notes included, activity lines not) of the conversations the caller sees, through a full-text index (PostgreSQL tsvector with GIN): words match by English stem or as written; `"phrases"`, `-excluded` and `or` as in web search. Best match first, then newest. ' +
      'Filters `channel_id`, `conversation_id`; paged by `page` and `limit`.',
  })
  @ApiPageEnvelope(MessageHitDto)
  async search(@CurrentPrincipal() p: Principal, @Query() q: SearchMessagesQueryDto) {
    const { page, limit, offset } = pageOf(q);
    const { items, total } = await this.browsing.search(p, { q: q.q, channelId: q.channel_id, conversationId: q.conversation_id }, limit, offset);
    return { items: items.map(messageHitView), total, page, limit };
  }
}
