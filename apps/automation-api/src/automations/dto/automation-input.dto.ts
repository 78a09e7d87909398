import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsWebhookUrl } from '../../common/is-webhook-url.decorator';
import { MATCH_MODES, type MatchMode } from '../../matching/keyword-matcher';
import { AUTOMATION_DEFAULTS as D } from '../automation.defaults';
import { TRIGGERS, type Trigger } from '../entities/automation.entity';

/** Optional, but when present it must not be null (the field has no "off" value). */
export const IsOptionalNotNull = () => ValidateIf((_o: object, v: unknown) => v !== undefined);

const HTTPS_URL = { protocols: ['https'], require_protocol: true, require_tld: false };
const HTTPS_MESSAGE = (field: string) => ({ message: `${field} must be an https URL` });
/** A date and time with a zone: `2026-12-01T18:00:00+01:00`, `…Z` (a date alone has no zone). */
export const WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

export class ExtraLinkDto {
  @ApiProperty({ example: 'Shop' })
  @IsString()
  @IsNotEmpty()
  title: string;

  @ApiProperty({ example: 'https://example.com/shop' })
  @IsString()
  @IsNotEmpty()
  @IsUrl(HTTPS_URL, HTTPS_MESSAGE('url'))
  url: string;
}

/**
 * Request body of POST /automations (and, every field optional, PATCH /automations/{id}). No other
 * properties are allowed. Comment-only fields (media_ids, next_post, reel_caption, reel_publish_at,
 * public_replies, skip_if_answered) are refused for the `dm` and `story_reply` triggers unless they
 * hold their "off" value (null, [] or false; skip_if_answered is refused in any form).
 */
export class AutomationInputDto {
  @ApiPropertyOptional({ description: 'Internal name', default: D.name, example: 'Guide giveaway' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ default: true, description: 'Switch; the automation answers only when active and its status is `active` (after go_live)' })
  @IsOptionalNotNull()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ enum: TRIGGERS, default: D.trigger })
  @IsOptionalNotNull()
  @IsIn(TRIGGERS)
  trigger?: Trigger;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Comment trigger only. IDs of posts/reels as listed by GET /posts. Empty or null: all posts' })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  media_ids?: string[] | null;

  @ApiPropertyOptional({ default: false, description: 'Comment trigger only. The reel is not online yet: the automation waits and attaches itself to the matching reel' })
  @IsOptionalNotNull()
  @IsBoolean()
  next_post?: boolean;

  @ApiPropertyOptional({ nullable: true, minLength: 3, maxLength: 300, description: 'With next_post: a unique part of the planned caption (case and spaces ignored)' })
  @IsOptional()
  @IsString()
  @Length(3, 300)
  reel_caption?: string | null;

  @ApiPropertyOptional({ nullable: true, example: '2026-12-01T18:00:00+01:00', description: 'With next_post: planned publish time, ISO 8601 with time zone' })
  @IsOptional()
  @IsISO8601({ strict: true })
  @Matches(WITH_ZONE, { message: 'reel_publish_at must be a date and time with a time zone, e.g. 2026-12-01T18:00:00+01:00 (Z or ±hh:mm)' })
  reel_publish_at?: string | null;

  @ApiPropertyOptional({ type: [String], default: [], description: 'Trigger words, case-insensitive', example: ['guide'] })
  @IsOptionalNotNull()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  keywords?: string[];

  @ApiPropertyOptional({ enum: MATCH_MODES, default: D.match_mode })
  @IsOptionalNotNull()
  @IsIn(MATCH_MODES)
  match_mode?: MatchMode;

  @ApiPropertyOptional({ type: [String], default: [] })
  @IsOptionalNotNull()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  exclude_keywords?: string[];

  @ApiPropertyOptional({ type: [String], default: [], description: 'Comment trigger only. One is picked at random; empty: no public reply' })
  @IsOptionalNotNull()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  public_replies?: string[];

  @ApiPropertyOptional({ default: D.opening_text })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  opening_text?: string;

  @ApiPropertyOptional({
    nullable: true,
    description: 'Button of the first DM. Default with follower check: `Send link`; without follower check and without opening_button (null) the link goes out in the first DM',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  opening_button?: string | null;

  @ApiPropertyOptional({ default: false, description: 'Link only for followers' })
  @IsOptionalNotNull()
  @IsBoolean()
  follow_gate?: boolean;

  @ApiPropertyOptional({ default: D.gate_text })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  gate_text?: string;

  @ApiPropertyOptional({ default: D.gate_button })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  gate_button?: string;

  @ApiPropertyOptional({ nullable: true, example: 'https://example.com/guide.pdf', description: 'Target link, https' })
  @IsOptional()
  @IsString()
  @IsUrl(HTTPS_URL, HTTPS_MESSAGE('link_url'))
  link_url?: string | null;

  @ApiPropertyOptional({ default: D.link_text })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  link_text?: string;

  @ApiPropertyOptional({ default: D.link_button, description: 'Title of the link button' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  link_button?: string;

  @ApiPropertyOptional({ type: [ExtraLinkDto], default: [], maxItems: 2, description: 'Both keys required per item; at most 2 items' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(2)
  @ValidateNested({ each: true })
  @Type(() => ExtraLinkDto)
  extra_links?: ExtraLinkDto[];

  @ApiPropertyOptional({ nullable: true, description: 'Reminder for people who did not click; sent once, with the link button, inside the 24-hour window' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  follow_up_text?: string | null;

  @ApiPropertyOptional({ default: 0, minimum: 0, maximum: 1380, description: 'Minutes without a click before the reminder; 0 = off' })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(1380)
  follow_up_minutes?: number;

  @ApiPropertyOptional({ default: false })
  @IsOptionalNotNull()
  @IsBoolean()
  email_gate?: boolean;

  @ApiPropertyOptional({ default: D.email_text })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  email_text?: string;

  @ApiPropertyOptional({ default: D.email_retry_text })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  email_retry_text?: string;

  @ApiPropertyOptional({ default: true })
  @IsOptionalNotNull()
  @IsBoolean()
  email_skip_if_known?: boolean;

  @ApiPropertyOptional({
    nullable: true,
    description: 'https URL receiving a POST on email_captured and link_sent. Private, loopback, link-local and metadata addresses are refused (the host is resolved; a host that does not resolve now is checked again at delivery). null = off',
  })
  @IsOptional()
  @IsWebhookUrl()
  webhook_url?: string | null;

  @ApiPropertyOptional({ nullable: true, description: 'Signing secret (X-Service-Signature: sha256=<hex>). Stored; always returned as `***`' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  webhook_secret?: string | null;

  @ApiPropertyOptional({ default: true })
  @IsOptionalNotNull()
  @IsBoolean()
  track_clicks?: boolean;

  @ApiPropertyOptional({ type: [String], default: [], description: 'Tags the contact receives' })
  @IsOptionalNotNull()
  @IsArray()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  tags?: string[];

  @ApiPropertyOptional({ default: true })
  @IsOptionalNotNull()
  @IsBoolean()
  once_per_user?: boolean;

  @ApiPropertyOptional({ default: 0, description: 'Higher number wins when several automations match' })
  @IsOptionalNotNull()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  priority?: number;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  notes?: string | null;

  @ApiPropertyOptional({
    default: true,
    description:
      'Comment trigger only. Skip comments the account already answered without this service (run state skipped_other_tool). Top-level comment: answered when its replies hold one from the account that this service did not post. A comment that is itself a reply (replies are one level deep, answers go under the same top-level comment): answered when the parent’s replies hold one from the account that this service did not post, that @mentions the reply’s author (case-insensitive, whole handle) and is not older than the reply. Checked once, before the first send.',
  })
  @IsOptionalNotNull()
  @IsBoolean()
  skip_if_answered?: boolean;
}
