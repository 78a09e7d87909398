import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { idPattern } from '../../common/ids';

class SentContactDto {
  @ApiProperty({ pattern: idPattern('cnt'), example: 'cnt_0a1b2c3d4e5f6g7h8i9j' })
  id: string;

  @ApiProperty({ example: 'ada@example.com' })
  email: string;
}

class SentSuppressionDto {
  @ApiProperty({ enum: ['hard_bounce', 'complaint', 'unsubscribe', 'manual'] })
  reason: string;

  @ApiProperty({ example: 'smtp-dsn' })
  source: string;

  @ApiProperty({ format: 'date-time' })
  since: string;
}

class SentEmailDto {
  @ApiProperty({ type: SentContactDto, description: 'The recipient\'s contact (created when new)' })
  contact: SentContactDto;

  @ApiProperty({ pattern: idPattern('eml'), example: 'eml_0a1b2c3d4e5f6g7h8i9j', description: 'Id of this recipient\'s email' })
  email: string;

  @ApiProperty({
    enum: ['QUEUED', 'STORED', 'SUPPRESSED'],
    description:
      'QUEUED: the worker sends it through SMTP_URL (then SENT or FAILED in the activity feed); STORED: SMTP_URL is unset, kept unsent; ' +
      'SUPPRESSED: not sent, never handed to SMTP — the address is on the suppression list (`suppression` says why) or it is marketing email to an unsubscribed contact',
  })
  status: 'QUEUED' | 'STORED' | 'SUPPRESSED';

  @ApiPropertyOptional({ type: SentSuppressionDto, description: 'Only when the address is on the project\'s suppression list and the mail was not sent' })
  suppression?: SentSuppressionDto;
}

/** `data` of POST /v1/send (`SendResult`). */
export class SendResultDto {
  @ApiProperty({ type: [SentEmailDto], description: 'One email per recipient, in the order of `to`' })
  emails: SentEmailDto[];

  @ApiProperty({ format: 'date-time' })
  timestamp: string;

  @ApiProperty({ enum: ['queued', 'stored'], description: '`stored` when SMTP_URL is unset: nothing is sent' })
  delivery: 'queued' | 'stored';

  @ApiPropertyOptional({ example: 'SMTP_URL is not configured: the emails were stored in the activity feed and not sent', description: 'Only with `delivery: "stored"`' })
  note?: string;
}
