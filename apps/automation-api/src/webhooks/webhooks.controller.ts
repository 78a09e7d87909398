import { Controller, Get, Header, Headers, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiExtraModels, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { ErrorDto } from '../common/error.dto';
import { CustomerWebhookDto } from './dto/customer-webhook.dto';
import { WebhooksService } from './webhooks.service';

/** The platform's webhook endpoint: public (no API key), outside /api/v1. */
@ApiTags('platform webhooks')
@ApiExtraModels(CustomerWebhookDto)
@Controller('webhooks/instagram')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @Header('content-type', 'text/plain; charset=utf-8')
  @ApiOperation({
    summary: 'Webhook verification (platform handshake)',
    description: 'Answers `hub.challenge` as plain text when `hub.mode=subscribe` and `hub.verify_token` equals IG_VERIFY_TOKEN (or an account\'s verify token); 403 otherwise. No API key.',
  })
  @ApiQuery({ name: 'hub.mode', required: false })
  @ApiQuery({ name: 'hub.verify_token', required: false })
  @ApiQuery({ name: 'hub.challenge', required: false })
  @ApiOkResponse({ description: 'The challenge, echoed', content: { 'text/plain': { schema: { type: 'string', example: '1158201444' } } } })
  @ApiForbiddenResponse({ type: ErrorDto })
  verify(@Query('hub.mode') mode?: string, @Query('hub.verify_token') token?: string, @Query('hub.challenge') challenge?: string): Promise<string> {
    return this.webhooks.verify(mode, token, challenge);
  }

  @Post()
  @HttpCode(200)
  @Header('content-type', 'text/plain; charset=utf-8')
  @ApiOperation({
    summary: 'Webhook receiver (comments, messages, postbacks, story replies)',
    description:
      'Checks `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>` (401 and nothing stored otherwise), stores each item durably, ' +
      'keyed by the platform id (comment id, message mid, postback mid: redeliveries are dropped), and answers 200 `EVENT_RECEIVED` at once; processing runs off the request path. ' +
      'Ignored: the account\'s own comments (`from.id == entry.id`), echoes (`is_echo`), deleted messages, unknown accounts. ' +
      'A signed delivery not in the platform\'s shape (`entry` or `changes` or `messaging` not a list of objects, an id that is not a string) answers 400 `{error}` naming the part; ' +
      'it is kept for inspection (a work item of kind `unreadable`, processed, with the reason as its error) and never processed.',
  })
  @ApiBody({
    description: "The platform's delivery: `{object: 'instagram', entry: [{id, time, changes?: [{field, value}], messaging?: [...]}]}` (its Graph API webhook format)",
    schema: { type: 'object', required: ['object', 'entry'], properties: { object: { type: 'string', example: 'instagram' }, entry: { type: 'array', items: { type: 'object' } } } },
  })
  @ApiOkResponse({ description: 'Stored (or a redelivery, dropped)', content: { 'text/plain': { schema: { type: 'string', enum: ['EVENT_RECEIVED'] } } } })
  @ApiBadRequestResponse({ type: ErrorDto, description: 'A signed delivery the receiver cannot read (kept for inspection)' })
  @ApiUnauthorizedResponse({ type: ErrorDto })
  async receive(@Req() req: Request & { rawBody?: Buffer }, @Headers('x-hub-signature-256') signature: string | undefined): Promise<string> {
    // The parsed body straight from the request: the platform's payload is not API input (no pipes).
    await this.webhooks.receive(req.rawBody, signature, req.body as unknown);
    return 'EVENT_RECEIVED';
  }
}
