import { Controller, Get, Header, Headers, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiProperty, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import type { Request } from 'express';
import { ApiErrorAnswer, Public } from '../access/access.decorators';
import { RawResponse } from '../common/envelope.interceptor';
import { WebhookRateLimit } from '../rate-limit/rate-limit';
import { WhatsAppWebhookService } from './whatsapp-webhook.service';

class DeliveryResultDto {
  @ApiProperty({ description: 'New messages stored' }) received: number;
  @ApiProperty({ description: 'Messages already stored (redeliveries): nothing created' }) duplicates: number;
  @ApiProperty({ description: 'Status callbacks applied to outgoing messages' }) statuses: number;
  @ApiProperty({ description: 'Items for another phone number' }) ignored: number;
}

/** WhatsApp Cloud API webhooks of one channel: public (the provider signs), counted per tenant. */
@ApiTags('webhooks')
@Controller('api/v1/webhooks/whatsapp')
@Public()
@WebhookRateLimit()
export class WhatsAppWebhookController {
  constructor(private readonly webhooks: WhatsAppWebhookService) {}

  @Get(':channelId')
  @RawResponse()
  @Header('content-type', 'text/plain; charset=utf-8')
  @ApiOperation({ summary: 'Webhook verification handshake', description: 'Echoes `hub.challenge` as plain text when `hub.mode=subscribe` and `hub.verify_token` is the channel’s; 403 `VERIFICATION_FAILED`; 404 `CHANNEL_NOT_FOUND`.' })
  @ApiQuery({ name: 'hub.mode', required: true, example: 'subscribe' })
  @ApiQuery({ name: 'hub.verify_token', required: true })
  @ApiQuery({ name: 'hub.challenge', required: true, example: '1158201444' })
  @ApiResponse({ status: 200, content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiErrorAnswer(403, '`VERIFICATION_FAILED`: not `hub.mode=subscribe` with the channel\'s verify token')
  @ApiErrorAnswer(404, '`CHANNEL_NOT_FOUND`')
  verify(@Param('channelId') channelId: string, @Query('hub.mode') mode?: string, @Query('hub.verify_token') token?: string, @Query('hub.challenge') challenge?: string) {
    return this.webhooks.verify(channelId, mode, token, challenge);
  }

  @Post(':channelId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Webhook receiver (messages and statuses)',
    description:
      '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the channel’s app secret>` (401 `INVALID_SIGNATURE`). Inbound text and media create the contact and conversation as needed; ' +
      'a message id already stored creates nothing (`duplicates`). 400 `INVALID_PAYLOAD` for a body not in the provider’s shape; 404 `CHANNEL_NOT_FOUND`. ' +
      'Throttled per tenant (CONVERSATION_WEBHOOK_RATE_LIMIT_PER_MINUTE), not per client.',
  })
  @ApiBody({ schema: { type: 'object', required: ['object', 'entry'], properties: { object: { type: 'string', example: 'whatsapp_business_account' }, entry: { type: 'array', items: { type: 'object' } } } } })
  @ApiOkEnvelope(DeliveryResultDto)
  @ApiErrorAnswer(401, '`INVALID_SIGNATURE`: `X-Hub-Signature-256` missing or not the HMAC of the body with the channel\'s app secret')
  @ApiErrorAnswer(404, '`CHANNEL_NOT_FOUND`')
  receive(@Param('channelId') channelId: string, @Req() req: Request & { rawBody?: Buffer; id?: unknown }, @Headers('x-hub-signature-256') signature?: string) {
    // Most deliveries are answered by the raw route (whatsapp-raw-route.ts) before they reach Nest; the others here.
    return this.webhooks.receive(channelId, req.rawBody, signature, req.body as unknown, typeof req.id === 'string' ? req.id : undefined);
  }
}
