import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class TimeseriesQueryDto {
  @ApiPropertyOptional({ enum: ['hour', 'day'], default: 'day' })
  @IsOptional()
  @IsIn(['hour', 'day'])
  interval?: 'hour' | 'day';

  @ApiPropertyOptional({ example: 'Europe/Berlin', default: 'UTC', description: 'IANA time zone whose hours or days are the buckets' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  timeZone?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Start (default: 30 days before `to` by day, 48 hours by hour); at most 745 hours or 732 days before `to`' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  from?: Date;

  @ApiPropertyOptional({ format: 'date-time', description: 'End, exclusive (default: now)' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  to?: Date;
}

export class SinceLimitQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Start of the period (default: 90 days ago for top-campaigns, 30 days for the others)' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  since?: Date;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 10 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

export class SinceOnlyQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Start of the period (default: 30 days ago)' })
  @IsOptional()
  @Type(() => Date)
  @IsDate()
  since?: Date;
}

const COUNT = { type: 'integer', minimum: 0 } as const;

export class TimeseriesPointDto {
  @ApiProperty({ example: '2026-03-29T00:00:00', description: 'Start of the bucket in local time of `timeZone`' })
  local: string;
  @ApiProperty({ format: 'date-time', description: 'The same instant in UTC' })
  start: string;
  @ApiProperty({ ...COUNT, description: 'Mails handed to SMTP' }) sent: number;
  @ApiProperty({ ...COUNT, description: 'Delivery reports' }) delivered: number;
  @ApiProperty({ ...COUNT, description: 'Opens by people (privacy-proxy opens are in flaggedOpens)' }) opened: number;
  @ApiProperty({ ...COUNT, description: 'Clicks by people (scanner clicks flagged on arrival are in flaggedClicks)' }) clicked: number;
  @ApiProperty({ ...COUNT, description: 'Bounces, hard and soft' }) bounced: number;
  @ApiProperty(COUNT) complained: number;
  @ApiProperty(COUNT) unsubscribed: number;
  @ApiProperty({ ...COUNT, description: 'Inbound mail' }) received: number;
  @ApiProperty(COUNT) flaggedOpens: number;
  @ApiProperty(COUNT) flaggedClicks: number;
}

export class TimeseriesTotalsDto {
  @ApiProperty(COUNT) sent: number;
  @ApiProperty(COUNT) delivered: number;
  @ApiProperty(COUNT) opened: number;
  @ApiProperty(COUNT) clicked: number;
  @ApiProperty(COUNT) bounced: number;
  @ApiProperty(COUNT) complained: number;
  @ApiProperty(COUNT) unsubscribed: number;
  @ApiProperty(COUNT) received: number;
  @ApiProperty(COUNT) flaggedOpens: number;
  @ApiProperty(COUNT) flaggedClicks: number;
}

export class TimeseriesDto {
  @ApiProperty({ enum: ['hour', 'day'] })
  interval: string;
  @ApiProperty({ example: 'Europe/Berlin' })
  timeZone: string;
  @ApiProperty({ format: 'date-time' })
  from: string;
  @ApiProperty({ format: 'date-time' })
  to: string;
  @ApiProperty({ type: TimeseriesTotalsDto, description: 'Sums over the points (empty points are 0; with no points, an empty object)' })
  totals: TimeseriesTotalsDto;
  @ApiProperty({ type: [TimeseriesPointDto], description: 'Every bucket of the period, oldest first, empty ones too' })
  points: TimeseriesPointDto[];
}

abstract class RatesDto {
  @ApiProperty(COUNT) sent: number;
  @ApiProperty({ ...COUNT, description: 'Sent and not bounced' }) delivered: number;
  @ApiProperty({ ...COUNT, description: 'Mails opened by a person' }) opened: number;
  @ApiProperty({ ...COUNT, description: 'Mails clicked by a person' }) clicked: number;
  @ApiProperty({ ...COUNT, description: 'Hard bounces' }) bounced: number;
  @ApiProperty(COUNT) complained: number;
  @ApiProperty({ description: 'opened / delivered, 4 decimals (0 when nothing was delivered)' }) openRate: number;
  @ApiProperty({ description: 'clicked / delivered' }) clickRate: number;
  @ApiProperty({ description: 'clicked / opened (click-to-open)' }) clicksPerOpen: number;
  @ApiProperty({ description: 'bounced / sent' }) bounceRate: number;
  @ApiProperty({ description: 'complained / sent' }) complaintRate: number;
}

export class TopCampaignDto extends RatesDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['SENDING', 'SENT', 'CANCELLED'] }) status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) startedAt: string | null;
}

export class CampaignTotalsDto extends RatesDto {
  @ApiProperty({ format: 'date-time' }) since: string;
  @ApiProperty({ ...COUNT, description: 'Campaigns with mail written in the period' }) campaigns: number;
}

export class TopEventDto {
  @ApiProperty({ example: 'signed_up' }) name: string;
  @ApiProperty(COUNT) count: number;
  @ApiProperty({ ...COUNT, description: 'Distinct contacts that tracked it' }) contacts: number;
  @ApiProperty({ format: 'date-time' }) lastAt: string;
}
