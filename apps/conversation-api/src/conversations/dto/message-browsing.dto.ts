import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import type { MessageHit } from '../messages.repository';
import type { MessagePage } from '../message-browsing.service';
import { MessageDto, messageView } from './conversation.dto';

const CURSOR = /^[A-Za-z0-9_-]{1,100}$/;

export class MessagePageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'Messages older than this cursor (`meta.older` of a page)' })
  @IsOptional()
  @Matches(CURSOR, { message: 'before must be a cursor from meta.older' })
  before?: string;

  @ApiPropertyOptional({ description: 'Messages newer than this cursor (`meta.newer` of a page)' })
  @IsOptional()
  @Matches(CURSOR, { message: 'after must be a cursor from meta.newer' })
  after?: string;
}

export class MessagePageMetaDto {
  @ApiProperty({ type: 'integer', description: 'Messages in the conversation' }) total: number;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ nullable: true, type: String, description: 'Pass as `before` for the previous (older) page; null when there are no older messages' }) older: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Pass as `after` for the messages after this page — to continue forward or to poll for new ones; null only for an empty page' }) newer: string | null;
  @ApiProperty({ description: 'Whether messages newer than this page exist already' }) has_newer: boolean;
}

export class MessagePageDto {
  @ApiProperty({ enum: [true] }) success: true;
  @ApiProperty({ type: [MessageDto], description: 'Oldest first' }) data: MessageDto[];
  @ApiProperty({ type: MessagePageMetaDto }) meta: MessagePageMetaDto;
}

export const messagePageView = (p: MessagePage): MessagePageDto => ({
  success: true,
  data: p.messages.map(messageView),
  meta: { total: p.total, limit: p.limit, older: p.older, newer: p.newer, has_newer: p.hasNewer },
});

export class SearchMessagesQueryDto extends PageQueryDto {
  @ApiProperty({ example: 'refund "order 1042" -cancelled', description: 'Words (English stems match: refunds → refund), "quoted phrases", `-word` to exclude, `or`' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  q: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  channel_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Within one conversation' })
  @IsOptional()
  @IsUUID()
  conversation_id?: string;
}

export class MessageHitConversationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer' }) display_id: number;
  @ApiProperty({ nullable: true, type: String }) contact_name: string | null;
}

export class MessageHitDto {
  @ApiProperty({ type: MessageDto }) message: MessageDto;
  @ApiProperty({ type: MessageHitConversationDto }) conversation: MessageHitConversationDto;
  @ApiProperty({ example: 'we sent the <b>refund</b> yesterday', description: 'Excerpt with the matching words in `<b>…</b>` (the text itself is not HTML-escaped)' }) highlight: string;
  @ApiProperty({ description: 'Relevance (ts_rank); hits are ordered by it, then newest first' }) rank: number;
}

export const messageHitView = (h: MessageHit): MessageHitDto => ({
  message: messageView(h.message),
  conversation: { id: h.conversation.id, display_id: h.conversation.displayId, contact_name: h.conversation.contactName },
  highlight: h.highlight,
  rank: h.rank,
});
