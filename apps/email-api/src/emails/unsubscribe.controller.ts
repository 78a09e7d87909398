import { Controller, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { RequestId } from '../common/request-id.decorator';
import { escapeHtml } from './render';
import { UnsubscribeService } from './unsubscribe.service';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title>` +
  `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.5rem 1rem}</style></head><body>${body}</body></html>`;

/**
 * The target of `List-Unsubscribe` (RFC 8058): mail clients POST `List-Unsubscribe=One-Click` to
 * the link; people who open it get a confirmation page whose button POSTs the same URL (a GET never
 * unsubscribes, so link scanners cannot unsubscribe anyone). No authentication: the link is signed.
 */
const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };
const INVALID_LINK = { 404: '`INVALID_UNSUBSCRIBE_LINK` (JSON, not HTML): the signature does not match or the contact no longer exists' };

@ApiTags('Unsubscribe')
@Controller('unsubscribe')
export class UnsubscribeController {
  constructor(private readonly unsubscribe: UnsubscribeService) {}

  @Get(':token')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Confirmation page of an unsubscribe link (HTML)' })
  @ApiOkResponse({ description: 'An HTML page: the unsubscribe button (a form POSTing to the same URL), or "You are unsubscribed"', content: HTML_PAGE })
  @ApiErrors(PARAM_ERRORS, INVALID_LINK)
  async confirm(@Param('token') token: string): Promise<string> {
    const contact = await this.unsubscribe.contactOf(token);
    const email = escapeHtml(contact.email);
    if (!contact.subscribed) return page('Unsubscribed', `<h1>You are unsubscribed</h1><p>${email} no longer receives marketing email from this sender.</p>`);
    return page(
      'Unsubscribe',
      `<h1>Unsubscribe</h1><p>Stop marketing email to <strong>${email}</strong>?</p>` +
        `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
    );
  }

  @Post(':token')
  @HttpCode(200)
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'One-click unsubscribe (RFC 8058 List-Unsubscribe-Post target); idempotent' })
  @ApiOkResponse({ description: 'An HTML page confirming the unsubscription (also when the contact already was)', content: HTML_PAGE })
  @ApiErrors(PARAM_ERRORS, INVALID_LINK)
  async oneClick(@Param('token') token: string, @RequestId() requestId?: string): Promise<string> {
    const { email } = await this.unsubscribe.unsubscribe(token, requestId);
    return page('Unsubscribed', `<h1>You are unsubscribed</h1><p>${escapeHtml(email)} no longer receives marketing email from this sender.</p>`);
  }
}
