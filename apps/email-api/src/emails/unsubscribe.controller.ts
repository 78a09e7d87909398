import { Controller, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
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
@ApiTags('Unsubscribe')
@Controller('unsubscribe')
export class UnsubscribeController {
  constructor(private readonly unsubscribe: UnsubscribeService) {}

  @Get(':token')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Confirmation page of an unsubscribe link (HTML)' })
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
  async oneClick(@Param('token') token: string, @RequestId() requestId?: string): Promise<string> {
    const { email } = await this.unsubscribe.unsubscribe(token, requestId);
    return page('Unsubscribed', `<h1>You are unsubscribed</h1><p>${escapeHtml(email)} no longer receives marketing email from this sender.</p>`);
  }
}
