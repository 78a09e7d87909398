import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsDateString, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUrl, IsUUID, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { PageQueryDto } from '../../common/pagination';
import { CONVERSATION_STATUSES, PRIORITIES, type Attachment, type Conversation, type ConversationStatus, type Message, type Priority } from '../conversation';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export class ContactSummaryDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ nullable: true, type: String }) name: string | null;
  @ApiProperty({ nullable: true, type: String }) email: string | null;
  @ApiProperty({ nullable: true, type: String }) phone: string | null;
}

export class ConversationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: 'integer', description: 'Number of the conversation in its account (1, 2, …)' }) display_id: number;
  @ApiProperty({ format: 'uuid' }) channel_id: string;
  @ApiProperty({ enum: CONVERSATION_STATUSES }) status: ConversationStatus;
  @ApiProperty({ enum: PRIORITIES, nullable: true }) priority: Priority | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) assignee_id: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) team_id: string | null;
  @ApiProperty({ type: [String] }) labels: string[];
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) snoozed_until: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Since when the contact waits for a reply (null: not waiting)' }) waiting_since: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'The first public agent reply' }) first_reply_created_at: string | null;
  @ApiProperty({ format: 'date-time' }) last_activity_at: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: ContactSummaryDto }) contact: ContactSummaryDto;
}

export const conversationView = (c: Conversation): ConversationDto => ({
  id: c.id,
  display_id: c.displayId,
  channel_id: c.channelId,
  status: c.status,
  priority: c.priority,
  assignee_id: c.assigneeId,
  team_id: c.teamId,
  labels: c.labels,
  snoozed_until: iso(c.snoozedUntil),
  waiting_since: iso(c.waitingSince),
  first_reply_created_at: iso(c.firstReplyCreatedAt),
  last_activity_at: c.lastActivityAt.toISOString(),
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
  contact: c.contact,
});

export class MessageDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) conversation_id: string;
  @ApiProperty({ enum: ['incoming', 'outgoing', 'activity'], description: '`activity`: a system line (assignment, status change)' }) message_type: string;
  @ApiProperty({ nullable: true, type: String }) content: string | null;
  @ApiProperty({ example: 'text', description: '`text`, `incoming_email`, `image`, `video`, `audio`, `document`, `sticker`, `location`, `unsupported`' }) content_type: string;
  @ApiProperty({ description: 'A private note (whisper): visible to agents, never sent to the contact' }) private: boolean;
  @ApiProperty({ enum: ['pending', 'sent', 'delivered', 'read', 'failed'] }) status: string;
  @ApiProperty({ nullable: true, type: String, description: "The provider's message id (`wamid.…`)" }) source_id: string | null;
  @ApiProperty({ nullable: true, example: { type: 'user', id: '…' } }) sender: { type: 'contact' | 'user'; id: string | null } | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'object' },
    description:
      "Media: `{type, media_id, mime_type, sha256, filename?, url?, file_size?, download_path?}` — `download_path` (GET, with the access token) serves the copy downloaded when the message arrived (the provider's `url` expires within minutes); location: `{type, latitude, longitude, name?, address?}`",
  })
  attachments: Array<Omit<Attachment, 'storage_key'> & { download_path?: string }>;
  @ApiProperty({ nullable: true, type: String, description: 'Why sending failed' }) error: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Channel-specific details (Chatwoot’s `content_attributes`); email messages: `{email: {subject, from, to, cc, message_id, in_reply_to, references}}`',
  })
  content_attributes: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const messageView = (m: Message): MessageDto => ({
  id: m.id,
  conversation_id: m.conversationId,
  message_type: m.messageType,
  content: m.content,
  content_type: m.contentType,
  private: m.private,
  status: m.status,
  source_id: m.sourceId,
  sender: m.senderType ? { type: m.senderType, id: m.senderId } : null,
  attachments: m.attachments.map(({ storage_key, ...a }, i) => (storage_key ? { ...a, download_path: `/api/v1/conversations/${m.conversationId}/messages/${m.id}/attachments/${i}` } : a)),
  error: m.error,
  content_attributes: m.contentAttributes,
  created_at: m.createdAt.toISOString(),
});

export class ConversationWithMessagesDto extends ConversationDto {
  @ApiProperty({ type: [MessageDto], description: 'The latest 200 messages, oldest first (every message, in cursor pages: GET /api/v1/conversations/{id}/messages)' }) messages: MessageDto[];
}

const toBool = ({ value }: { value: unknown }) => (value === 'true' || value === true ? true : value === 'false' || value === false ? false : value);

export class ListConversationsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: [...CONVERSATION_STATUSES, 'all'], default: 'all' })
  @IsOptional()
  @IsIn([...CONVERSATION_STATUSES, 'all'])
  status?: ConversationStatus | 'all';

  @ApiPropertyOptional({ format: 'uuid', description: 'Assigned to this user (`me` for the caller)' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== 'me')
  @IsUUID()
  assignee_id?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  team_id?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  channel_id?: string;

  @ApiPropertyOptional({ example: 'billing' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  label?: string;

  @ApiPropertyOptional({ description: 'Only conversations without an assignee' })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  unassigned?: boolean;

  @ApiPropertyOptional({ description: "Search in the contact's name, email, phone and the message texts" })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  q?: string;
}

export class SendMessageDto {
  @ApiProperty({ example: 'Hello! How can we help?', maxLength: 4096 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  content: string;
}

export class OutboundMediaDto {
  @ApiProperty({ enum: ['image', 'video', 'audio', 'document'] })
  @IsIn(['image', 'video', 'audio', 'document'])
  type: 'image' | 'video' | 'audio' | 'document';

  @ApiProperty({ example: 'https://cdn.example.com/invoice.pdf', description: 'A public https URL the provider downloads the file from' })
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'link must be an https URL' })
  @MaxLength(2048)
  link: string;

  @ApiPropertyOptional({ maxLength: 1024, description: 'Not for audio' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  caption?: string;

  @ApiPropertyOptional({ maxLength: 240, description: 'Documents only' })
  @IsOptional()
  @IsString()
  @MaxLength(240)
  filename?: string;
}

export class OutboundTemplateDto {
  @ApiProperty({ example: 'order_update', description: 'An approved message template of the WhatsApp Business Account' })
  @Matches(/^[a-z0-9_]{1,512}$/, { message: 'name must be a template name: lowercase letters, digits and _' })
  name: string;

  @ApiProperty({ example: 'en_US' })
  @Matches(/^[a-z]{2,3}(_[A-Za-z]{2,4})?$/, { message: 'language must be a language code such as en or en_US' })
  language: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object' }, description: "The template's components with their parameters, as the Cloud API takes them" })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  components?: Array<Record<string, unknown>>;
}

/** An agent's reply: text (`content`), media by link (`media`, `content` optional), or an approved template (`template`). */
export class SendReplyDto {
  @ApiPropertyOptional({ example: 'Hello! How can we help?', maxLength: 4096, description: 'Required for a text reply' })
  @ValidateIf((o: SendReplyDto) => !o.media && !o.template)
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  content?: string;

  @ApiPropertyOptional({ type: OutboundMediaDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => OutboundMediaDto)
  media?: OutboundMediaDto;

  @ApiPropertyOptional({ type: OutboundTemplateDto, description: 'The only kind of message WhatsApp delivers outside the 24-hour customer service window' })
  @IsOptional()
  @ValidateNested()
  @Type(() => OutboundTemplateDto)
  template?: OutboundTemplateDto;
}

export class AssignDto {
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, description: 'null unassigns; omitted keeps the agent' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  assignee_id?: string | null;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, description: 'null removes the team; omitted keeps it' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  team_id?: string | null;
}

export class SetStatusDto {
  @ApiProperty({ enum: CONVERSATION_STATUSES })
  @IsIn(CONVERSATION_STATUSES)
  status: ConversationStatus;

  @ApiPropertyOptional({ format: 'date-time', description: 'With `snoozed`: when it wakes (open again); without, until the next incoming message' })
  @IsOptional()
  @IsDateString()
  snoozed_until?: string;
}

export class UpdateConversationDto {
  @ApiPropertyOptional({ type: [String], description: 'The complete label list' })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(50)
  @Matches(/^[a-z0-9][a-z0-9_-]{0,49}$/, { each: true, message: 'labels are 1-50 lowercase letters, digits, _ or -' })
  labels?: string[];

  @ApiPropertyOptional({ enum: PRIORITIES, nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsIn(PRIORITIES)
  priority?: Priority | null;
}
