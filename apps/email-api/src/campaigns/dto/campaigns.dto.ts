import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsEmail, IsIn, IsObject, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { PageDto, PageQueryDto } from '../../common/dto/page.dto';
import { CONDITION_SCHEMA } from '../../segments/dto/segments.dto';

const STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'];

export class CampaignBodyDto {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ maxLength: 998, description: 'Required unless `templateId` gives it. Placeholders as in templates.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @Matches(/^[^\r\n]*$/, { message: 'subject must not contain line breaks' })
  subject?: string;

  @ApiPropertyOptional({ description: 'HTML; required unless `templateId` gives it. `{{email}}`, `{{name ?? "default"}}`, `{{data.x}}`, `{{unsubscribeUrl}}`, `{{manageUrl}}`.' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(2_000_000)
  body?: string;

  @ApiPropertyOptional({ description: 'Sender on a verified domain of the project (422 `domain_not_verified` otherwise); required unless `templateId` gives it' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  from?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'A template of the project: fills subject, body and from where the campaign leaves them out (and shows in its usage)' })
  @IsOptional()
  @IsUUID()
  templateId?: string;

  @ApiProperty({ enum: ['ALL', 'SEGMENT', 'FILTERED'], description: 'ALL: every subscribed contact; SEGMENT: the subscribed members of `segmentId`; FILTERED: subscribed contacts matching `audienceCondition`' })
  @IsIn(['ALL', 'SEGMENT', 'FILTERED'])
  audienceType: 'ALL' | 'SEGMENT' | 'FILTERED';

  @ApiPropertyOptional({ format: 'uuid', description: 'audienceType SEGMENT only' })
  @IsOptional()
  @IsUUID()
  segmentId?: string;

  @ApiPropertyOptional({ ...CONDITION_SCHEMA, description: `audienceType FILTERED only: a segment-shaped condition. ${CONDITION_SCHEMA.description}` })
  @IsOptional()
  @IsObject()
  audienceCondition?: Record<string, unknown>;
}

export class SendCampaignDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'In the future: SCHEDULED, sent by the scheduler at that time; absent or past: SENDING now' })
  @IsOptional()
  @Type(() => Date)
  @IsDate({ message: 'scheduledFor must be an ISO 8601 date-time' })
  scheduledFor?: Date;
}

export class TestCampaignDto {
  @ApiProperty({ example: 'me@example.com' })
  @IsEmail()
  @MaxLength(254)
  email: string;
}

export class CampaignListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: STATUSES })
  @IsOptional()
  @IsIn(STATUSES)
  status?: 'DRAFT' | 'SCHEDULED' | 'SENDING' | 'SENT' | 'CANCELLED';
}

export class CampaignDto {
  @ApiProperty({ format: 'uuid' })
  id: string;
  @ApiProperty()
  name: string;
  @ApiProperty()
  subject: string;
  @ApiProperty()
  body: string;
  @ApiProperty()
  from: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  templateId: string | null;
  @ApiProperty({ enum: ['ALL', 'SEGMENT', 'FILTERED'] })
  audienceType: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true })
  segmentId: string | null;
  @ApiProperty({ ...CONDITION_SCHEMA, nullable: true })
  audienceCondition: Record<string, unknown> | null;
  @ApiProperty({ enum: STATUSES, description: 'DRAFT → SCHEDULED → SENDING → SENT; SCHEDULED or SENDING → CANCELLED' })
  status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  scheduledFor: string | null;
  @ApiProperty({ description: 'Mails written so far by the fan-out (one per recipient)' })
  recipients: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  startedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finishedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  cancelledAt: string | null;
  @ApiProperty({ format: 'date-time' })
  createdAt: string;
  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class CampaignPageDto extends PageDto(CampaignDto) {}

export class OpenCountsDto {
  @ApiProperty({ description: 'Every open event, flagged ones too' })
  total: number;
  @ApiProperty({ description: 'Mails opened at least once (any open)' })
  unique: number;
  @ApiProperty({ description: 'Opens not flagged as a privacy proxy' })
  human: number;
  @ApiProperty({ description: 'Mails opened by a person at least once' })
  humanUnique: number;
  @ApiProperty({ description: 'Opens flagged `privacy_proxy` (Apple Mail Privacy Protection, image prefetchers, fetches right after sending)' })
  privacyProxy: number;
}

export class ClickCountsDto {
  @ApiProperty({ description: 'Every click event, flagged ones too' })
  total: number;
  @ApiProperty({ description: 'Mails with at least one click' })
  unique: number;
  @ApiProperty({ description: 'Clicks by a person: no scanner flag and no click on another link of the mail within 2 s' })
  human: number;
  @ApiProperty({ description: 'Mails clicked by a person at least once' })
  humanUnique: number;
  @ApiProperty({ description: 'Clicks left out of the human figures (scanners: HEAD requests, known scanner agents, within seconds of sending, every link at once)' })
  scanner: number;
}

export class CampaignStatsDto {
  @ApiProperty({ enum: STATUSES })
  status: string;
  @ApiProperty({ description: 'Mails written (one per recipient)' })
  recipients: number;
  @ApiProperty({ description: 'Not yet handed to SMTP' })
  queued: number;
  @ApiProperty({ description: 'Accepted by the SMTP server' })
  sent: number;
  @ApiProperty({ description: 'Sent and not bounced' })
  delivered: number;
  @ApiProperty({ description: 'Mails opened by a person (= opens.humanUnique): privacy-proxy opens left out' })
  opened: number;
  @ApiProperty({ description: 'Mails with a click by a person (= clicks.humanUnique): scanner clicks left out' })
  clicked: number;
  @ApiProperty({ description: 'Bounced: refused for good by the SMTP server (5xx) at send time, or bounced later (a delivery status notification or a provider event)' })
  bounced: number;
  @ApiProperty({ description: 'Marked as spam by the recipient (recorded by feedback loops)' })
  complained: number;
  @ApiProperty({ description: 'Recipients who unsubscribed after the mail was sent' })
  unsubscribed: number;
  @ApiProperty({ description: 'Not sent: refused by the SMTP server or out of attempts' })
  failed: number;
  @ApiProperty({ description: 'Not sent: the campaign was cancelled before the mail was handed to SMTP (status CANCELLED; never counted as bounced)' })
  cancelled: number;
  @ApiProperty({ type: OpenCountsDto, description: 'Open events (the tracking pixel)' })
  opens: OpenCountsDto;
  @ApiProperty({ type: ClickCountsDto, description: 'Click events (the tracked links)' })
  clicks: ClickCountsDto;
  @ApiProperty({ description: 'opens.humanUnique / delivered (0 with nothing delivered), 4 decimals' })
  openRate: number;
  @ApiProperty({ description: 'clicks.humanUnique / delivered, 4 decimals' })
  clickRate: number;
  @ApiProperty({ description: 'Clicks per open: clicks.humanUnique / opens.humanUnique (the click-to-open rate), 4 decimals' })
  clicksPerOpen: number;
}



export class CampaignTestResultDto {
  @ApiProperty()
  email: string;
  @ApiProperty({ pattern: '^eml_[0-9a-z]{20}$' })
  emailId: string;
  @ApiProperty({ enum: ['QUEUED', 'STORED'] })
  status: string;
}
