import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDate, IsEmail, IsIn, IsInt, IsObject, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { PageDto, PageQueryDto } from '../../common/dto/page.dto';
import { CONDITION_SCHEMA } from '../../segments/dto/segments.dto';

const STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'];
const VARIANTS = ['A', 'B', 'C', 'D'];
const AB_PHASES = ['testing', 'waiting', 'winner'];
/** The longest wait of an A/B test: 30 days. */
export const MAX_AB_WAIT_MINUTES = 43_200;

export class AbVariantBodyDto {
  @ApiPropertyOptional({ maxLength: 998, description: 'Replaces the campaign\'s subject in this variant (placeholders as in the campaign)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(998)
  @Matches(/^[^\r\n]*$/, { message: 'subject must not contain line breaks' })
  subject?: string;

  @ApiPropertyOptional({ description: 'Replaces the campaign\'s body (HTML) in this variant' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(2_000_000)
  body?: string;
}

export class AbTestBodyDto {
  @ApiProperty({
    type: [AbVariantBodyDto],
    minItems: 2,
    maxItems: 4,
    description: 'Two to four variants, named A, B, C, D in this order; each gives `subject`, `body` or both (what it leaves out is the campaign\'s). A tie goes to the earlier variant.',
  })
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(4)
  @IsObject({ each: true, message: 'each variant must be an object {subject?, body?}' })
  @ValidateNested({ each: true })
  @Type(() => AbVariantBodyDto)
  variants: AbVariantBodyDto[];

  @ApiProperty({ minimum: 1, maximum: 50, example: 20, description: 'Percent of the audience that gets the test (drawn at random, split evenly across the variants); the rest gets the winner' })
  @IsInt()
  @Min(1)
  @Max(50)
  testShare: number;

  @ApiProperty({ enum: ['opens', 'clicks'], description: 'The winner has the highest rate of mails opened (`opens`) or clicked (`clicks`) by a person, per delivered mail: privacy-proxy opens and scanner clicks do not count' })
  @IsIn(['opens', 'clicks'])
  metric: 'opens' | 'clicks';

  @ApiProperty({ minimum: 1, maximum: MAX_AB_WAIT_MINUTES, example: 240, description: 'Minutes from the moment every test mail was handed to SMTP until the winner is picked (at most 30 days); POST /campaigns/{id}/ab/winner picks earlier' })
  @IsInt()
  @Min(1)
  @Max(MAX_AB_WAIT_MINUTES)
  waitMinutes: number;
}

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

  @ApiPropertyOptional({ type: AbTestBodyDto, description: 'An A/B test: the test share of the audience gets the variants, the rest the winner (see "A/B tests" in the README). Absent on PUT: the campaign has none.' })
  @IsOptional()
  @IsObject({ message: 'abTest must be an object {variants, testShare, metric, waitMinutes}' })
  @ValidateNested()
  @Type(() => AbTestBodyDto)
  abTest?: AbTestBodyDto;
}

export class PickAbWinnerDto {
  @ApiPropertyOptional({ enum: VARIANTS, description: 'This variant wins whatever the figures; absent: the best by the test\'s metric now (a tie goes to the earlier variant)' })
  @IsOptional()
  @IsIn(VARIANTS)
  variant?: 'A' | 'B' | 'C' | 'D';
}

export class AbVariantDto {
  @ApiProperty({ enum: VARIANTS })
  id: string;
  @ApiProperty({ type: String, nullable: true, description: 'null: the campaign\'s subject' })
  subject: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'null: the campaign\'s body' })
  body: string | null;
}

export class CampaignAbTestDto {
  @ApiProperty({ type: [AbVariantDto] })
  variants: AbVariantDto[];
  @ApiProperty({ minimum: 1, maximum: 50 })
  testShare: number;
  @ApiProperty({ enum: ['opens', 'clicks'] })
  metric: string;
  @ApiProperty({ minimum: 1, maximum: MAX_AB_WAIT_MINUTES })
  waitMinutes: number;
  @ApiProperty({
    enum: AB_PHASES,
    nullable: true,
    description:
      'While the campaign is SENDING: `testing` (the test group\'s mails are written and sent), `waiting` (every test mail was handed to SMTP; the winner is picked at `winnerDueAt`), `winner` (the rest gets the winner; SENT once it was sent). null before sending.',
  })
  phase: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Contacts drawn for the test: testShare % of the recipients counted when sending started (rounded half up, at least one per variant)' })
  testSize: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the winner is picked (set once the test mails were sent)' })
  winnerDueAt: string | null;
  @ApiProperty({ enum: VARIANTS, nullable: true })
  winner: string | null;
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

  @ApiPropertyOptional({ enum: VARIANTS, description: 'A variant of the campaign\'s A/B test: its subject and body (422 when the test has no such variant)' })
  @IsOptional()
  @IsIn(VARIANTS)
  variant?: 'A' | 'B' | 'C' | 'D';
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
  @ApiProperty({ type: CampaignAbTestDto, nullable: true, description: 'The A/B test, null without one' })
  abTest: CampaignAbTestDto | null;
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
  @ApiProperty({ type: () => AbStatsDto, nullable: true, description: 'Per-variant figures of the A/B test, the winner and the significance; null without a test' })
  abTest: AbStatsDto | null;
}



export class AbFiguresDto {
  @ApiProperty({ description: 'Mails written' })
  recipients: number;
  @ApiProperty({ description: 'Accepted by the SMTP server' })
  sent: number;
  @ApiProperty({ description: 'Sent and not bounced: the base of the rates' })
  delivered: number;
  @ApiProperty({ description: 'Mails opened by a person (privacy-proxy opens left out)' })
  opened: number;
  @ApiProperty({ description: 'Mails clicked by a person (scanner clicks left out)' })
  clicked: number;
  @ApiProperty({ description: 'opened / delivered, 4 decimals' })
  openRate: number;
  @ApiProperty({ description: 'clicked / delivered, 4 decimals' })
  clickRate: number;
}

export class AbVariantStatsDto extends AbFiguresDto {
  @ApiProperty({ enum: VARIANTS })
  id: string;
}

export class AbSignificanceDto {
  @ApiProperty({ enum: ['opens', 'clicks'] })
  metric: string;
  @ApiProperty({ enum: VARIANTS, isArray: true, minItems: 2, maxItems: 2, description: 'The best variant by the metric, then the runner-up' })
  variants: string[];
  @ApiProperty({ description: 'Pooled two-proportion z statistic of best − runner-up (0 when it cannot be computed: nothing delivered, or both rates 0 or 1), 4 decimals' })
  z: number;
  @ApiProperty({ description: 'Two-sided p-value, 6 decimals: how likely a difference this large is if the variants were the same' })
  pValue: number;
  @ApiProperty({ description: 'pValue < 0.05. false: the difference may well be noise (the winner still goes out; a larger test share or a longer wait gives more certainty)' })
  significant: boolean;
}

export class AbDecisionFigureDto {
  @ApiProperty({ enum: VARIANTS })
  variant: string;
  @ApiProperty()
  delivered: number;
  @ApiProperty({ description: 'Opened or clicked by a person, by the metric' })
  successes: number;
  @ApiProperty({ description: 'successes / delivered, 4 decimals' })
  rate: number;
}

export class AbWinnerDto {
  @ApiProperty({ enum: VARIANTS })
  variant: string;
  @ApiProperty({ enum: ['metric', 'forced'], description: '`metric`: the highest rate of the metric; `forced`: named by POST /campaigns/{id}/ab/winner' })
  by: string;
  @ApiProperty({ enum: ['wait', 'early'], description: '`wait`: the wait ran out; `early`: POST /campaigns/{id}/ab/winner ended it' })
  trigger: string;
  @ApiProperty({ description: 'Picked by the metric while another variant had the same rate: the earlier variant won' })
  tie: boolean;
  @ApiProperty({ format: 'date-time' })
  at: string;
  @ApiProperty({ type: [AbDecisionFigureDto], description: 'The figures the winner was picked on' })
  figures: AbDecisionFigureDto[];
  @ApiProperty({ type: AbSignificanceDto, description: 'The significance when the winner was picked' })
  significance: AbSignificanceDto;
}

export class AbStatsDto {
  @ApiProperty({ enum: AB_PHASES, nullable: true })
  phase: string | null;
  @ApiProperty({ enum: ['opens', 'clicks'] })
  metric: string;
  @ApiProperty()
  testShare: number;
  @ApiProperty()
  waitMinutes: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Recipients counted when the test started' })
  audience: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Contacts drawn for the test' })
  testSize: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  winnerDueAt: string | null;
  @ApiProperty({ type: [AbVariantStatsDto], description: 'The test group\'s mails by variant' })
  variants: AbVariantStatsDto[];
  @ApiProperty({ type: AbFiguresDto, description: 'The rest of the audience: mails with the winner\'s content' })
  rest: AbFiguresDto;
  @ApiProperty({ type: AbWinnerDto, nullable: true, description: 'null until the winner is picked' })
  winner: AbWinnerDto | null;
  @ApiProperty({ type: AbSignificanceDto, description: 'The best two variants by the metric now (opens and clicks of the test mails keep coming after the pick)' })
  significance: AbSignificanceDto;
}

export class CampaignTestResultDto {
  @ApiProperty()
  email: string;
  @ApiProperty({ pattern: '^eml_[0-9a-z]{20}$' })
  emailId: string;
  @ApiProperty({ enum: ['QUEUED', 'STORED'] })
  status: string;
}
