import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import type { Request, Response } from 'express';
import { ApiErrors } from '../common/api-errors.decorator';
import { MailEventsService } from '../mail-events/mail-events.service';
import { clickFlag, openFlag } from './bot-rules';
import { PIXEL, PIXEL_HEADERS, REDIRECT_HEADERS } from './tracking-fast-path';
import { TrackingLinks } from './tracking-links';

const invalidLink = () =>
  new ApiError(404, 'INVALID_TRACKING_LINK', 'This link is not valid', { suggestion: 'Use the link exactly as it appears in the email.' });

/**
 * Public paths of open and click tracking (no key: recipients' mail clients call them). Most requests
 * are answered before the router by the same rules (tracking-fast-path.ts); these routes answer the
 * rest (percent-encoded tokens, wrong click tokens and links) and document both.
 */
@ApiTags('Tracking')
@Controller('t')
export class TrackingController {
  constructor(
    private readonly links: TrackingLinks,
    private readonly events: MailEventsService,
  ) {}

  @Get('o/:token')
  @ApiOperation({
    summary: 'Open pixel (public)',
    description:
      'Answers a 1×1 transparent GIF whatever the token (a wrong or tampered token records nothing). A valid token records an `open` event of its mail while the project tracks; ' +
      'privacy-proxy opens are recorded with the flag `privacy_proxy` and left out of the human figures (rules in the README).',
  })
  @ApiParam({ name: 'token', description: '`<mail id>.<signature>` as the mail carries it' })
  @ApiProduces('image/gif')
  @ApiOkResponse({ description: 'The GIF', schema: { type: 'string', format: 'binary' } })
  @ApiErrors({})
  open(@Param('token') token: string, @Req() req: Request, @Res() res: Response): void {
    const emailId = this.links.tokens.verifyOpen(token);
    if (emailId) {
      const ua = req.headers['user-agent'];
      this.events.trackOpen(emailId, openFlag(ua, req.ip), ua);
    }
    res.status(200).set(PIXEL_HEADERS).end(PIXEL);
  }

  @Get('c/:token')
  @ApiOperation({
    summary: 'Tracked link (public)',
    description:
      '302 to the link of the mail the token names; only links the mail contained (their list is stored with the mail), so no open redirect. Records a `click` while the project tracks; ' +
      'scanner clicks (HEAD requests, scanner agents, within seconds of sending, every link at once) are recorded with the flag `scanner` (rules in the README). HEAD is answered the same way (and flagged).',
  })
  @ApiParam({ name: 'token', description: '`<mail id>.<link index>.<signature>` as the mail carries it' })
  @ApiFoundResponse({ description: 'Redirect to the link', headers: { Location: { description: 'The link of the mail', schema: { type: 'string', format: 'uri' } } } })
  @ApiErrors({ 404: '`INVALID_TRACKING_LINK`: the token is wrong or tampered with, or names no link of the mail' })
  async click(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    const link = this.links.tokens.verifyClick(token);
    if (!link) throw invalidLink();
    const url = await this.events.clickTarget(link.emailId, link.index);
    if (!url) throw invalidLink();
    const ua = req.headers['user-agent'];
    this.events.trackClick(link.emailId, link.index, clickFlag(req.method, ua), ua, req.method);
    res.status(302).set({ Location: url, ...REDIRECT_HEADERS }).end();
  }
}
