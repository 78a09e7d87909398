import { Body, Controller, Get, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConflictResponse, ApiConsumes, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { renderConnectPage } from './connect-page';
import { CONNECT_COOKIE, CONNECT_PATH, ConnectService, STATE_TTL_MS, type PageResult } from './connect.service';
import { ConnectCallbackDto, ConnectLinkDto } from './dto/connect.dto';

const HTML = { 'text/html': { schema: { type: 'string' } } };

/** The one cookie this page reads, from the Cookie header (no cookie middleware in the app). */
function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

/**
 * The page's own policy. `form-action` also governs where the form's answer may redirect (Chromium
 * checks the 303 of `/start`), so it names the origin of the platform's authorization window.
 */
function send(res: Response, result: PageResult, authorizeOrigin: string): void {
  res
    .status(result.status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${authorizeOrigin}; frame-ancestors 'none'`,
      'x-frame-options': 'DENY',
    })
    .send(renderConnectPage(result.page));
}

/**
 * The page an operator opens once to connect an account through the platform's OAuth login. Public
 * (no API key): the connect link's secret, printed by `create-account` / `connect-account`, is the credential.
 */
@ApiTags('connect')
@Controller(CONNECT_PATH.slice(1))
export class ConnectController {
  constructor(private readonly connect: ConnectService) {}

  @Get()
  @ApiOperation({
    summary: 'Connect page (HTML)',
    description: 'Opened from a connect link: names the account and offers "Connect with Instagram". 404 page for an unknown, used or expired link; 409 page when the login is not configured (IG_APP_ID, IG_APP_SECRET, redirect URI).',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'The page', content: HTML })
  @ApiBadRequestResponse({ description: '`{error}`: `link` is not the shape of a connect link\'s secret' })
  @ApiNotFoundResponse({ description: 'Page: unknown, used or expired link', content: HTML })
  @ApiConflictResponse({ description: 'Page: the login is not configured', content: HTML })
  async page(@Query() q: ConnectLinkDto, @Res() res: Response): Promise<void> {
    send(res, await this.connect.page(q.link), this.connect.authorizeOrigin);
  }

  @Post('start')
  @HttpCode(303)
  @ApiOperation({
    summary: 'Start the login',
    description: `303 to the platform's authorization window with a fresh single-use \`state\` (valid 10 minutes), and an HttpOnly cookie \`${CONNECT_COOKIE}\` (SameSite=Lax) that the callback must bring back. The link stays usable until an account is connected through it.`,
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ type: ConnectLinkDto })
  @ApiResponse({ status: 303, description: 'Redirect to the authorization window' })
  @ApiBadRequestResponse({ description: '`{error}`: `link` is not the shape of a connect link\'s secret' })
  @ApiNotFoundResponse({ description: 'Page: unknown, used or expired link', content: HTML })
  @ApiConflictResponse({ description: 'Page: the login is not configured', content: HTML })
  @ApiProduces('text/html')
  async start(@Body() body: ConnectLinkDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const result = await this.connect.start(body.link);
    if ('status' in result) return send(res, result, this.connect.authorizeOrigin);
    res.cookie(CONNECT_COOKIE, result.nonce, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: CONNECT_PATH, maxAge: STATE_TTL_MS });
    res.set('cache-control', 'no-store').redirect(303, result.redirect);
  }

  @Get('callback')
  @ApiOperation({
    summary: 'Login callback (the redirect URI)',
    description:
      'Checks the state (known, unused, not expired) and that the browser brings the cookie of the start (400 page otherwise), exchanges the code for a short-lived and then a long-lived token, reads the account (`/me`: user_id, username), stores the token encrypted with its expiry and subscribes the webhook fields. 200 page "Connected" or "Connection cancelled"; 409 page when that platform account is connected to another account; 502 page when the platform refused (the link can be used again).',
  })
  @ApiProduces('text/html')
  @ApiOkResponse({ description: 'Result page', content: HTML })
  @ApiBadRequestResponse({ description: 'Page: unknown, used or expired state, or the browser lacks the cookie of the start', content: HTML })
  @ApiConflictResponse({ description: 'Page: that platform account is connected to another account', content: HTML })
  @ApiResponse({ status: 502, description: 'Page: the platform refused (the link can be used again)', content: HTML })
  async callback(@Query() q: ConnectCallbackDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const result = await this.connect.callback(q, readCookie(req, CONNECT_COOKIE));
    res.clearCookie(CONNECT_COOKIE, { path: CONNECT_PATH });
    send(res, result, this.connect.authorizeOrigin);
  }
}
