import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class CustomerWebhookAutomationDto {
  @ApiProperty({ example: 12 }) id: number;
  @ApiProperty({ example: 'Guide giveaway' }) name: string;
}

export class CustomerWebhookContactDto {
  @ApiProperty({ description: 'Scoped id of the person on the platform', example: '1000000000000001' }) ig_id: string;
  @ApiProperty({ type: String, nullable: true, example: 'jane' }) username: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'jane@example.com' }) email: string | null;
}

/**
 * Body of the customer webhook (POST to the automation's webhook_url) on `email_captured` and
 * `link_sent`. Header `X-Service-Signature: sha256=<HMAC-SHA256 hex of the body>` when
 * webhook_secret is set. Retried with exponential backoff (AUTOMATION_RETRY_BASE_MS doubling, at
 * most AUTOMATION_MAX_ATTEMPTS attempts) until a 2xx answer; redirects are not followed.
 */
export class CustomerWebhookDto {
  @ApiProperty({ enum: ['email_captured', 'link_sent'] }) event: 'email_captured' | 'link_sent';
  @ApiProperty({ description: 'ISO 8601', example: '2026-11-22T10:00:00.000Z' }) occurred_at: string;
  @ApiProperty({ type: CustomerWebhookAutomationDto }) automation: CustomerWebhookAutomationDto;
  @ApiProperty({ type: CustomerWebhookContactDto }) contact: CustomerWebhookContactDto;
  @ApiProperty({ example: 345 }) run_id: number;
  @ApiPropertyOptional({ description: 'link_sent only: the target link (link_url)', example: 'https://example.com/guide' }) link?: string;
}
