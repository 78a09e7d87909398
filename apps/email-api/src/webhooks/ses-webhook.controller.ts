import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import type { Request } from 'express';
import { ApiErrors } from '../common/api-errors.decorator';
import { SesWebhookAnswerDto, SnsMessageDto } from './dto/ses-webhook.dto';
import { SesWebhookService } from './ses-webhook.service';

/** SNS messages are at most 256 KB; the JSON around them adds a little. */
const MAX_BODY = 300 * 1024;

@ApiTags('Webhooks')
@Controller('webhooks')
export class SesWebhookController {
  constructor(private readonly ses: SesWebhookService) {}

  @Post('ses')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Amazon SES events through SNS (internal receiver, not called by clients)',
    description:
      'SNS posts its messages with `Content-Type: text/plain` (JSON inside); `application/json` is taken too. No key: every delivery is checked instead — its `TopicArn` is one of `SES_SNS_TOPIC_ARNS`, ' +
      '`SigningCertURL` is an https `.pem` URL on an SNS host, and `Signature` verifies with that certificate (SignatureVersion 1 SHA1withRSA or 2 SHA256withRSA; certificates are cached). ' +
      'A `SubscriptionConfirmation` is confirmed by a GET of its `SubscribeURL`. A `Notification` carrying an SES `Bounce` (Permanent: hard, Transient or Undetermined: soft), `Complaint` or `Delivery` ' +
      'is recorded as a mail event of the mail SES names (`mail.messageId`, the id SES gave the mail when it was sent); a hard bounce or complaint suppresses the address. Each event lands once (SNS retries and the same bounce reported by a DSN record nothing new).',
  })
  @ApiConsumes('text/plain', 'application/json')
  @ApiBody({ type: SnsMessageDto })
  @ApiOkResponse({ type: SesWebhookAnswerDto })
  @ApiErrors({
    400: '`BAD_REQUEST`: the body is not a JSON document',
    403:
      '`SNS_TOPIC_NOT_ALLOWED`: the topic is not one of SES_SNS_TOPIC_ARNS (all are refused while it is unset); `SNS_SIGNATURE_MISSING`: unsigned; `SNS_CERT_URL_NOT_ALLOWED` / `SNS_SUBSCRIBE_URL_NOT_ALLOWED`: not https on an SNS host; `SNS_SIGNATURE_INVALID`: the signature does not verify',
    413: '`PAYLOAD_TOO_LARGE`: larger than 300 KB',
    422: '`VALIDATION_ERROR`: not an SNS message (`error.errors` names each field)',
    502: '`SNS_CERTIFICATE_UNAVAILABLE`: the signing certificate could not be fetched; `SNS_CONFIRMATION_FAILED`: SNS refused the subscription confirmation',
  })
  async receive(@Req() req: Request): Promise<SesWebhookAnswerDto> {
    return this.ses.receive(await jsonBody(req));
  }
}

/** The JSON body: parsed already (application/json), or read here (SNS's text/plain). */
async function jsonBody(req: Request): Promise<unknown> {
  if (req.body && typeof req.body === 'object' && Object.keys(req.body as object).length > 0) return req.body;
  if (req.readableEnded) throw badBody();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body exceeds the limit of 300 KB', { suggestion: 'SNS messages are at most 256 KB.' });
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw badBody();
  }
}

const badBody = () => new ApiError(400, 'BAD_REQUEST', 'Malformed request body: the body is not a JSON document', { suggestion: 'Send the SNS message as SNS does: the JSON document as the body.' });
