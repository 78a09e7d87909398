import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';

/** An Amazon SNS HTTP(S) delivery as SNS posts it (`Content-Type: text/plain`, a JSON document); other fields are ignored. */
export class SnsMessageDto {
  @ApiProperty({ enum: ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] })
  @IsIn(['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'])
  Type!: 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

  @ApiProperty({ description: 'SNS id of the message (the same on every retry)' })
  @IsString()
  @MaxLength(200)
  MessageId!: string;

  @ApiProperty({ example: 'arn:aws:sns:us-east-1:123456789012:ses-events', description: 'Must be one of SES_SNS_TOPIC_ARNS' })
  @IsString()
  @MaxLength(300)
  TopicArn!: string;

  @ApiProperty({ description: 'Notification: the SES event as JSON; confirmations: a text from SNS' })
  @IsString()
  @MaxLength(300_000)
  Message!: string;

  @ApiProperty({ example: '2026-11-28T08:00:00.000Z' })
  @IsISO8601()
  Timestamp!: string;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  Subject?: string | null;

  @ApiPropertyOptional({ description: 'Confirmations: the URL whose GET confirms the subscription (https on an SNS host)' })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  SubscribeURL?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  UnsubscribeURL?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  Token?: string;

  @ApiPropertyOptional({ enum: ['1', '2'], description: '1: SHA1withRSA, 2: SHA256withRSA' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  SignatureVersion?: string;

  @ApiPropertyOptional({ description: 'Base64 signature of the canonical string' })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  Signature?: string;

  @ApiPropertyOptional({ description: 'https URL of the signing certificate on an SNS host (`sns.<region>.amazonaws.com` by default)' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  SigningCertURL?: string;
}

export class SesWebhookAnswerDto {
  @ApiProperty({ enum: ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] })
  type!: string;

  @ApiPropertyOptional({ description: 'SubscriptionConfirmation: the subscription was confirmed (GET SubscribeURL answered 2xx)' })
  confirmed?: boolean;

  @ApiPropertyOptional({ description: 'Notification: the SES event type (Bounce, Complaint, Delivery, or another, which records nothing)' })
  sesEventType?: string;

  @ApiPropertyOptional({ nullable: true, description: 'Notification: the mail the event is about (null: SES names a mail this service does not know)', pattern: '^eml_[0-9a-z]{20}$' })
  emailId?: string | null;

  @ApiPropertyOptional({ description: 'Notification: mail events the event gives' })
  events?: number;

  @ApiPropertyOptional({ description: 'Notification: of those, the ones recorded now (a duplicate records none)' })
  recorded?: number;
}
