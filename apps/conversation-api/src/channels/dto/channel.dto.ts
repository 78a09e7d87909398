import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsDefined, IsEmail, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested } from 'class-validator';
import type { Channel } from '../channels.repository';

export class MailServerViewDto {
  @ApiProperty({ example: 'imap.example.com' }) host: string;
  @ApiProperty({ example: 993 }) port: number;
  @ApiProperty({ description: 'TLS from the start; false: plain, with STARTTLS when offered' }) secure: boolean;
  @ApiProperty({ example: 'support@example.com' }) user: string;
  @ApiPropertyOptional({ example: 'INBOX', description: 'IMAP only' }) mailbox?: string;
}

export class EmailChannelViewDto {
  @ApiProperty({ example: 'support@example.com' }) address: string;
  @ApiProperty({ type: MailServerViewDto }) imap: MailServerViewDto;
  @ApiProperty({ type: MailServerViewDto }) smtp: MailServerViewDto;
}

export class MailboxStatusDto {
  @ApiProperty({ nullable: true, type: 'integer', description: 'UIDVALIDITY of the mailbox the cursor belongs to' }) uid_validity: number | null;
  @ApiProperty({ nullable: true, type: 'integer', description: 'The last UID taken: the next poll reads above it' }) last_uid: number | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) last_polled_at: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why the last poll failed (null: it succeeded)' }) last_error: string | null;
  @ApiProperty({ type: 'integer', description: 'Mails stored as messages' }) received: number;
  @ApiProperty({ type: 'integer', description: 'Automatic replies (Auto-Submitted, Precedence bulk/junk/auto_reply, X-Autoreply, reports) that opened nothing' }) auto_replies_skipped: number;
  @ApiProperty({ type: 'integer', description: 'Mails from the channel’s own address that opened nothing' }) own_mails_skipped: number;
}

export class ChannelDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['whatsapp', 'email'] }) type: 'whatsapp' | 'email';
  @ApiProperty({ example: 'Support line' }) name: string;
  @ApiProperty({ nullable: true, type: String, example: '+15550001111' }) phone_number: string | null;
  @ApiProperty({ nullable: true, type: String, example: '106540352242922', description: 'WhatsApp Cloud API phone number id (WhatsApp channels)' }) phone_number_id: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'WhatsApp Business Account id' }) business_account_id: string | null;
  @ApiProperty({ nullable: true, type: EmailChannelViewDto, description: 'Email channels: the address and servers (passwords never returned)' }) email: EmailChannelViewDto | null;
  @ApiProperty({ nullable: true, type: String, description: 'WhatsApp: path of the webhook to configure at the provider (callback URL), with the verify token given here; null for email channels' }) webhook_path: string | null;
  @ApiProperty({ description: 'New conversations are assigned round robin to `member_ids`' }) auto_assignment: boolean;
  @ApiProperty({ nullable: true, type: 'integer', description: 'Most open conversations per agent under automatic assignment (null: no cap)' }) assignment_cap: number | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Team given to new conversations' }) team_id: string | null;
  @ApiProperty({ type: [String] }) member_ids: string[];
  @ApiProperty({ description: 'Credentials are stored encrypted and never returned' }) credentials_set: boolean;
  @ApiProperty({
    description: 'Webhook health: `ignored_items` counts delivered items (messages, statuses) addressed to another phone number id than this channel’s — a sign that the provider’s webhook is shared with another number — with the last one’s number and time. Email channels add `mailbox` (see MailboxStatusDto): the IMAP cursor, the last poll and its error, and counts of mails stored and skipped',
    example: { ignored_items: 0, last_ignored_at: null, last_ignored_phone_number_id: null },
  })
  status: { ignored_items: number; last_ignored_at: string | null; last_ignored_phone_number_id: string | null; mailbox?: MailboxStatusDto };
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const channelView = (c: Channel): ChannelDto => ({
  id: c.id,
  type: c.type,
  name: c.name,
  phone_number: c.phoneNumber,
  phone_number_id: c.phoneNumberId,
  business_account_id: c.businessAccountId,
  email: c.email ? { address: c.email.address, imap: { ...c.email.settings.imap }, smtp: { ...c.email.settings.smtp } } : null,
  webhook_path: c.type === 'whatsapp' ? `/api/v1/webhooks/whatsapp/${c.id}` : null,
  auto_assignment: c.autoAssignment,
  assignment_cap: c.assignmentCap,
  team_id: c.teamId,
  member_ids: c.memberIds,
  credentials_set: true,
  status: {
    ignored_items: c.ignored.count,
    last_ignored_at: c.ignored.lastAt?.toISOString() ?? null,
    last_ignored_phone_number_id: c.ignored.lastPhoneNumberId,
    ...(c.email
      ? {
          mailbox: {
          uid_validity: c.email.mailbox.uidValidity,
          last_uid: c.email.mailbox.lastUid,
          last_polled_at: c.email.mailbox.lastPolledAt?.toISOString() ?? null,
          last_error: c.email.mailbox.lastError,
          received: c.email.mailbox.received,
          auto_replies_skipped: c.email.mailbox.autoRepliesSkipped,
          own_mails_skipped: c.email.mailbox.ownMailsSkipped,
          },
        }
      : {}),
  },
  created_at: c.createdAt.toISOString(),
});

const HOST = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\d{1,3}(\.\d{1,3}){3}$|^\[[0-9A-Fa-f:.]+\]$/;

export class MailServerDto {
  @ApiProperty({ example: 'imap.example.com', description: 'Host name or address of the server' })
  @Matches(HOST, { message: 'host must be a host name or an IP address' })
  host: string;

  @ApiProperty({ example: 993, minimum: 1, maximum: 65535 })
  @IsInt()
  @Min(1)
  @Max(65535)
  port: number;

  @ApiPropertyOptional({ description: 'TLS from the start (IMAPS 993, SMTPS 465). Default: true on ports 993 and 465; otherwise plain, upgraded with STARTTLS when the server offers it' })
  @IsOptional()
  @IsBoolean()
  secure?: boolean;

  @ApiProperty({ example: 'support@example.com' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  user: string;

  @ApiProperty({ description: 'Stored encrypted (AES-256-GCM, CONVERSATION_ENCRYPTION_KEY), never returned' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  password: string;
}

export class ImapServerDto extends MailServerDto {
  @ApiPropertyOptional({ default: 'INBOX', description: 'The mailbox (folder) read for new mail' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  mailbox?: string;
}

class AssignmentFields {
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  auto_assignment?: boolean;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: 1, maximum: 10000 })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(10_000)
  assignment_cap?: number | null;

  @ApiPropertyOptional({ format: 'uuid', nullable: true })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsUUID()
  team_id?: string | null;

  @ApiPropertyOptional({ type: [String], description: 'Agents of the channel (the round-robin pool)' })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true })
  member_ids?: string[];
}

export class CreateWhatsAppChannelDto extends AssignmentFields {
  @ApiProperty({ example: 'Support line' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ example: '+15550001111' })
  @IsOptional()
  @Matches(/^\+?[0-9 ()-]{5,24}$/, { message: 'phone_number must be a phone number' })
  phone_number?: string;

  @ApiProperty({ example: '106540352242922' })
  @Matches(/^[0-9]{1,32}$/, { message: 'phone_number_id must be the numeric id of the provider' })
  phone_number_id: string;

  @ApiPropertyOptional({ example: '102290129340398' })
  @IsOptional()
  @Matches(/^[0-9]{1,32}$/, { message: 'business_account_id must be numeric' })
  business_account_id?: string;

  @ApiProperty({ description: 'System-user access token of the Cloud API (stored encrypted)' })
  @IsString()
  @MinLength(8)
  @MaxLength(1000)
  access_token: string;

  @ApiProperty({ description: 'App secret: signs the webhook deliveries (X-Hub-Signature-256); stored encrypted' })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  app_secret: string;

  @ApiProperty({ description: 'Verify token of the webhook handshake (hub.verify_token); stored encrypted' })
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  verify_token: string;
}

export class UpdateChannelDto extends AssignmentFields {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(8)
  @MaxLength(1000)
  access_token?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  app_secret?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MinLength(8)
  @MaxLength(200)
  verify_token?: string;

  @ApiPropertyOptional({ type: () => ImapServerDto, description: 'Email channels: replaces the IMAP server block (password included)' })
  @IsOptional()
  @ValidateNested()
  @Type(() => ImapServerDto)
  imap?: ImapServerDto;

  @ApiPropertyOptional({ type: () => MailServerDto, description: 'Email channels: replaces the SMTP server block (password included)' })
  @IsOptional()
  @ValidateNested()
  @Type(() => MailServerDto)
  smtp?: MailServerDto;
}

export class CreateEmailChannelDto extends AssignmentFields {
  @ApiProperty({ example: 'Support mail' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiProperty({ example: 'support@example.com', description: 'The inbox address: replies are sent from it; mail from it opens no conversation' })
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email: string;

  @ApiProperty({ type: ImapServerDto, description: 'Where mail is read (IMAP)' })
  @IsDefined()
  @ValidateNested()
  @Type(() => ImapServerDto)
  imap: ImapServerDto;

  @ApiProperty({ type: MailServerDto, description: 'Where replies are sent (SMTP submission)' })
  @IsDefined()
  @ValidateNested()
  @Type(() => MailServerDto)
  smtp: MailServerDto;
}

export class ServerCheckDto {
  @ApiProperty() ok: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'What failed' }) error: string | null;
  @ApiProperty({ type: 'integer', description: 'Milliseconds the check took' }) duration_ms: number;
}

export class ChannelTestDto {
  @ApiProperty({ description: 'Both servers answered and accepted the credentials' }) ok: boolean;
  @ApiProperty({ type: ServerCheckDto, description: 'Login and opening the mailbox; `messages` and `uid_validity` of the mailbox when it worked' }) imap: ServerCheckDto & { messages?: number; uid_validity?: number };
  @ApiProperty({ type: ServerCheckDto, description: 'Connection, STARTTLS when offered, and authentication; nothing is sent' }) smtp: ServerCheckDto;
}
