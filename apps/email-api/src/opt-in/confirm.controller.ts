import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiGoneResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import type { Request, Response } from 'express';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorEnvelopeDto } from '../common/dto/error-envelope.dto';
import { RequestId } from '../common/request-id.decorator';
import { escapeHtml } from '../emails/render';
import { ConfirmSubscription, type ConfirmationOutcome } from './confirm-subscription';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title>` +
  `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.5rem 1rem}</style></head><body>${body}</body></html>`;

/**
 * The pages answer with these headers: nothing cached (the state changes), the token never leaves in
 * a Referer, no framing (nobody overlays the button), no script and no outside resource at all.
 */
const HEADERS: Array<[string, string]> = [
  ['Content-Type', 'text/html; charset=utf-8'],
  ['Cache-Control', 'no-store'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
  ['Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"],
];

const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };
const TOKEN_PARAM = ApiParam({ name: 'token', description: 'The signed token of the confirmation link (`<contact id>.<expiry>.<signature>`)' });
const HTML_TOO = 'A browser (any client not asking for JSON first in `Accept`) gets the same status with an HTML page saying so; a client asking for `application/json` gets the error envelope.';
const LINK_ERRORS = () => {
  const invalid = ApiErrors({
    404: `\`INVALID_CONFIRMATION_LINK\`: the link is forged or malformed, the contact was deleted, or it unsubscribed since (a new signup sends a new link). ${HTML_TOO}`,
  });
  const expired = ApiGoneResponse({
    description: `\`CONFIRMATION_LINK_EXPIRED\`: the link is older than 7 days; a new signup sends a new one. ${HTML_TOO}`,
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorEnvelopeDto) } } },
  });
  return (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
    ApiExtraModels(ErrorEnvelopeDto)(target, key, descriptor);
    expired(target, key, descriptor);
    invalid(target, key, descriptor);
  };
};

/** HTML of each outcome, and its status: 404 for a link that is not (or no longer) valid, 410 for an expired one. */
function render(outcome: ConfirmationOutcome): { status: number; html: string; error?: ApiError } {
  switch (outcome.state) {
    case 'pending':
      return {
        status: 200,
        html: page(
          'Confirm your subscription',
          `<h1>Confirm your subscription</h1><p>Receive email from this sender at <strong>${escapeHtml(outcome.email)}</strong>?</p>` +
            `<form method="post"><button type="submit">Confirm my subscription</button></form>` +
            `<p>If you did not sign up, close this page: you will not be subscribed.</p>`,
        ),
      };
    case 'confirmed':
      return { status: 200, html: page('Subscription confirmed', `<h1>Subscription confirmed</h1><p>Thank you: ${escapeHtml(outcome.email)} is subscribed.</p>`) };
    case 'subscribed':
      return { status: 200, html: page('Already confirmed', `<h1>Already confirmed</h1><p>${escapeHtml(outcome.email)} is already subscribed; nothing else to do.</p>`) };
    case 'expired':
      return {
        status: 410,
        html: page('Link expired', '<h1>This link has expired</h1><p>Confirmation links work for 7 days. Sign up again to receive a new one.</p>'),
        error: new ApiError(410, 'CONFIRMATION_LINK_EXPIRED', 'This confirmation link has expired (links work for 7 days)', { suggestion: 'Sign up again: a new confirmation mail is sent (at most one a day).' }),
      };
    case 'invalid':
      return {
        status: 404,
        html: page('Link not valid', '<h1>This link is not valid</h1><p>It may be incomplete, or the subscription was cancelled since. Sign up again to receive a new link.</p>'),
        error: new ApiError(404, 'INVALID_CONFIRMATION_LINK', 'This confirmation link is not valid (or the contact no longer waits for a confirmation)', {
          suggestion: 'Use the link of the newest confirmation mail, complete; or sign up again to receive a new one.',
        }),
      };
  }
}

/**
 * The confirmation link of double opt-in. A GET never confirms: mail scanners and link previews
 * fetch links before people do, so the page offers a button that POSTs to the same URL (as the
 * unsubscribe page). No authentication and no cookie: the link is the signed capability, so a
 * cross-site POST can do nothing the link's holder could not (CSRF-safe); plain HTML without script
 * or outside resources.
 */
@ApiTags('Double opt-in')
@Controller('confirm')
export class ConfirmController {
  constructor(private readonly confirmations: ConfirmSubscription) {}

  @Get(':token')
  @TOKEN_PARAM
  @ApiOperation({
    summary: 'Confirmation page of a double opt-in link (HTML)',
    description:
      'Shows a "Confirm my subscription" button (a form POSTing to the same URL) for a pending contact; "Already confirmed" for a subscribed one. ' +
      'A GET never confirms, so that mail scanners prefetching the link confirm nobody. Links work for 7 days.',
  })
  @ApiOkResponse({ description: 'The button, or "Already confirmed"', content: HTML_PAGE })
  @LINK_ERRORS()
  async show(@Param('token') token: string, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<string> {
    return send(req, res, render(await this.confirmations.inspect(token)));
  }

  @Post(':token')
  @HttpCode(200)
  @TOKEN_PARAM
  @ApiOperation({
    summary: 'Confirm a double opt-in subscription (the page\'s button); idempotent',
    description:
      'The pending contact becomes subscribed with `optIn: confirmed` and `confirmedAt`, and `contact.subscribed` is recorded (workflows on it start; an `unsubscribe` suppression of the address is lifted). ' +
      'A request body, if any, is ignored.',
  })
  @ApiOkResponse({ description: '"Subscription confirmed", or "Already confirmed" when it was', content: HTML_PAGE })
  @LINK_ERRORS()
  async confirm(@Param('token') token: string, @Req() req: Request, @Res({ passthrough: true }) res: Response, @RequestId() requestId?: string): Promise<string> {
    return send(req, res, render(await this.confirmations.execute(token, requestId)));
  }
}

/** The page; an invalid or expired link as the error envelope to a client that asks for JSON first. */
function send(req: Request, res: Response, out: { status: number; html: string; error?: ApiError }): string {
  if (out.error && req.accepts(['text/html', 'application/json']) === 'application/json') throw out.error;
  res.status(out.status);
  for (const [name, value] of HEADERS) res.setHeader(name, value);
  return out.html;
}
