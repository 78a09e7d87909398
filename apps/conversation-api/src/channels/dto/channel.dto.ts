import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayUnique, IsArray, IsBoolean, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength, ValidateIf } from 'class-validator';
import type { Channel } from '../channels.repository';

export class ChannelDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: ['whatsapp'] }) type: 'whatsapp';
  @ApiProperty({ example: 'Support line' }) name: string;
  @ApiProperty({ nullable: true, type: String, example: '+15550001111' }) phone_number: string | null;
  @ApiProperty({ example: '106540352242922', description: 'WhatsApp Cloud API phone number id' }) phone_number_id: string;
  @ApiProperty({ nullable: true, type: String, description: 'WhatsApp Business Account id' }) business_account_id: string | null;
  @ApiProperty({ description: 'Path of the webhook to configure at the provider (callback URL), with the verify token given here' }) webhook_path: string;
  @ApiProperty({ description: 'New conversations are assigned round robin to `member_ids`' }) auto_assignment: boolean;
  @ApiProperty({ nullable: true, type: 'integer', description: 'Most open conversations per agent under automatic assignment (null: no cap)' }) assignment_cap: number | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Team given to new conversations' }) team_id: string | null;
  @ApiProperty({ type: [String] }) member_ids: string[];
  @ApiProperty({ description: 'Credentials are stored encrypted and never returned' }) credentials_set: boolean;
  @ApiProperty({
    description: 'Webhook health: `ignored_items` counts delivered items (messages, statuses) addressed to another phone number id than this channel’s — a sign that the provider’s webhook is shared with another number — with the last one’s number and time',
    example: { ignored_items: 0, last_ignored_at: null, last_ignored_phone_number_id: null },
  })
  status: { ignored_items: number; last_ignored_at: string | null; last_ignored_phone_number_id: string | null };
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export const channelView = (c: Channel): ChannelDto => ({
  id: c.id,
  type: c.type,
  name: c.name,
  phone_number: c.phoneNumber,
  phone_number_id: c.phoneNumberId,
  business_account_id: c.businessAccountId,
  webhook_path: `/api/v1/webhooks/whatsapp/${c.id}`,
  auto_assignment: c.autoAssignment,
  assignment_cap: c.assignmentCap,
  team_id: c.teamId,
  member_ids: c.memberIds,
  credentials_set: true,
  status: { ignored_items: c.ignored.count, last_ignored_at: c.ignored.lastAt?.toISOString() ?? null, last_ignored_phone_number_id: c.ignored.lastPhoneNumberId },
  created_at: c.createdAt.toISOString(),
});

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
}
