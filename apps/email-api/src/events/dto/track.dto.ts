import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsObject, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { idPattern } from '../../common/ids';
import { CursorQueryDto } from '../../common/list-query.dto';

/** The longest `email` (after {@link trackEmail}). */
export const MAX_TRACK_EMAIL = 254;
/** The event name's length and shape (no space at either end). */
export const MAX_EVENT_NAME = 100;
export const EVENT_NAME = /^\S(.*\S)?$/;

/** `email` as validated and stored: trimmed and lower-case (any other value as given, for the validators to refuse). */
export const trackEmail = (value: unknown): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/** The body of POST /v1/track; the raw route (track-raw-route.ts) accepts exactly what this validates, else hands the request to it. */
export class TrackEventDto {
  @ApiProperty({ example: 'ada@example.com' })
  @Transform(({ value }) => trackEmail(value))
  @IsEmail()
  @MaxLength(MAX_TRACK_EMAIL)
  email: string;

  @ApiProperty({ example: 'signed_up', description: '1–100 characters; names starting with "email.", "contact.subscribed", "contact.unsubscribed" and "segment.<slug>.entry|exit" are reserved (422)' })
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_EVENT_NAME)
  @Matches(EVENT_NAME, { message: 'event must not start or end with whitespace' })
  event: string;

  @ApiPropertyOptional({
    description:
      'New contacts are subscribed unless this is false; existing contacts change only when it is given. With double opt-in on (the project\'s `doubleOptIn`), a new contact ' +
      '(unless false) or an unsubscribed one given true is not subscribed but `optIn: pending`, and gets a confirmation mail (at most one a day, queued off the request path); ' +
      'a subscribed contact stays subscribed. A signup form that should re-send the mail to a pending contact sends `subscribed: true`',
  })
  @IsOptional()
  @IsBoolean()
  subscribed?: boolean;

  @ApiPropertyOptional({
    description:
      'Event properties, also merged into the contact\'s custom fields (null removes a field, "" is ignored). `{"value": x, "persistent": false}` keeps x on the event (and workflow context) only.',
    example: { plan: 'pro', coupon: { value: 'WELCOME10', persistent: false } },
  })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;
}

export class TrackResponseDto {
  @ApiProperty({ pattern: idPattern('cnt'), example: 'cnt_0a1b2c3d4e5f6g7h8i9j', description: 'Id of the created or updated contact' })
  contact: string;

  @ApiProperty({ pattern: idPattern('evt'), example: 'evt_0a1b2c3d4e5f6g7h8i9j', description: 'Id of the stored event' })
  event: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z', description: 'When the event was recorded' })
  timestamp: string;
}

export class ListEventsQueryDto extends CursorQueryDto {
  @ApiPropertyOptional({ description: 'Only events of this name' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;
}
