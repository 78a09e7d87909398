import { Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import type { Request } from 'express';
import { ApiErrors } from '../common/api-errors.decorator';
import { StripeWebhookAnswerDto } from './dto/billing.dto';
import { StripeEvents } from './stripe-events.service';
import { WEBHOOK_TOLERANCE_SECONDS } from './stripe-gateway';

/** Stripe's events are a few KB; its limit for a webhook payload is far below this. */
const MAX_BODY = 512 * 1024;

@ApiTags('Webhooks')
@Controller('webhooks/incoming')
export class StripeWebhookController {
  constructor(private readonly events: StripeEvents) {}

  @Post('stripe')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Stripe events (internal receiver, not called by clients)',
    description:
      `No key: each delivery is verified instead — \`Stripe-Signature\` (\`t=<unix time>,v1=<HMAC-SHA256 of "<t>.<raw body>">\`) checked over the raw body with STRIPE_WEBHOOK_SECRET by the official client's \`webhooks.constructEvent\`, ` +
      `with a tolerance of ${WEBHOOK_TOLERANCE_SECONDS} seconds (the client's default): an old delivery replayed is refused. Each event id is handled once (a redelivery answers 200 with \`duplicate: true\` and changes nothing). ` +
      '`checkout.session.completed` and `invoice.paid` make the plan `active` (the plan allowance lifted) and re-enable a project billing disabled; `invoice.payment_failed` (plan `past_due`) and `customer.subscription.deleted` (`canceled`) disable the project: ' +
      'its sends and writes answer 403 PROJECT_DISABLED, its reads, settings and billing routes still answer. An event older than the one that set the plan in place changes nothing (Stripe does not deliver in order). Other types are acknowledged and ignored.',
  })
  @ApiHeader({ name: 'Stripe-Signature', required: true, description: 'Set by Stripe' })
  @ApiBody({ description: 'A Stripe event (`{id, object: "event", type, created, data: {object}}`), as Stripe sends it', schema: { type: 'object', additionalProperties: true } })
  @ApiOkResponse({ type: StripeWebhookAnswerDto })
  @ApiErrors({
    400: '`STRIPE_SIGNATURE_INVALID`: no `Stripe-Signature`, a signature that does not verify with STRIPE_WEBHOOK_SECRET, or a timestamp older than the tolerance; `BAD_REQUEST`: not JSON',
    413: '`PAYLOAD_TOO_LARGE`: larger than 512 KB',
    503: '`BILLING_DISABLED`: Stripe is not configured on this server',
  })
  async receive(@Req() req: Request, @Headers('stripe-signature') signature: string | undefined): Promise<StripeWebhookAnswerDto> {
    return this.events.receive(await rawBody(req), signature);
  }
}

/** The body exactly as sent: kept by the platform's JSON parser (`req.rawBody`), or read here for other content types. */
async function rawBody(req: Request): Promise<Buffer> {
  const kept = (req as Request & { rawBody?: Buffer }).rawBody;
  if (kept) return kept;
  if (req.readableEnded) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body exceeds the limit of 512 KB', { suggestion: 'Stripe events are a few KB.' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
