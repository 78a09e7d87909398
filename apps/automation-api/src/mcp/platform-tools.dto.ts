import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, IsArray, IsIn, IsOptional, IsString, Matches } from 'class-validator';

/** Input of the MCP tool `check_follower`. */
export class CheckFollowerDto {
  @ApiProperty({ description: 'The person’s Instagram-scoped id (Contact.ig_id)' })
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,100}$/, { message: 'ig_id must be an Instagram-scoped id as listed by list_contacts' })
  ig_id: string;
}

/** Result of `check_follower`; `follows` as in Contact (1 follows, 0 does not, null unknown). */
export class FollowerDto {
  @ApiProperty() ig_id: string;
  @ApiProperty({ type: String, nullable: true }) username: string | null;
  @ApiProperty({ type: Number, nullable: true }) follows: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why follows is null (the platform needs the person’s consent: they messaged or tapped a button)' }) reason: string | null;
  @ApiProperty() checked_at: string;
}

export const WEBHOOK_FIELDS = ['comments', 'live_comments', 'messages', 'messaging_postbacks', 'messaging_seen', 'message_reactions'] as const;

/** Input of `subscribe_webhooks`. */
export class SubscribeWebhooksDto {
  @ApiPropertyOptional({ type: [String], enum: WEBHOOK_FIELDS, description: 'Default: comments, messages, messaging_postbacks (what the engine needs)' })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(WEBHOOK_FIELDS, { each: true })
  fields?: string[];
}

/** Result of `subscribe_webhooks`: the subscription read back, and what the engine still misses. */
export class SubscriptionDto {
  @ApiProperty({ type: [String] }) subscribed_fields: string[];
  @ApiProperty({ type: String, nullable: true }) webhook_problem: string | null;
}
