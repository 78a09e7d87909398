import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { cookieValue } from '@platform/auth';
import type { Request, Response } from 'express';
import { SessionService, setSessionCookie } from '../access/session.service';
import { ApiErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { EmailApiConfig, SESSION_COOKIE } from '../config';
import { OAUTH_PROVIDERS } from './oauth-providers';
import { OAUTH_STATE_TTL_SECONDS, OAuthService, type OAuthCallbackQuery } from './oauth.service';

/** Binds a started login to the browser that started it (HttpOnly, 10 minutes). */
export const OAUTH_STATE_COOKIE = 'email_oauth_state';

const providerParam = { name: 'provider', enum: OAUTH_PROVIDERS, description: 'Must be configured (see GET /auth/oauth-config), else 404 `OAUTH_PROVIDER_NOT_FOUND`' };
const PROVIDER_NOT_FOUND = { 404: '`OAUTH_PROVIDER_NOT_FOUND`: the provider is not configured on this server' };
const location = (what: string) => ({ Location: { description: what, schema: { type: 'string', format: 'uri' } } });

@ApiTags('Auth')
@Controller('auth/oauth')
export class OAuthController {
  constructor(
    private readonly oauth: OAuthService,
    private readonly sessions: SessionService,
    private readonly config: EmailApiConfig,
  ) {}

  private stateCookieOptions() {
    return { httpOnly: true, sameSite: 'lax' as const, secure: this.config.NODE_ENV === 'production', path: '/' };
  }

  @Get(':provider')
  @ApiOperation({
    summary: 'Start an OAuth login (browser navigation): 302 to the provider',
    description:
      'Redirects to the provider\'s authorize URL with `client_id`, `redirect_uri` (`{PUBLIC_BASE_URL}/auth/oauth/{provider}/callback`), `scope` ' +
      '(GitHub `read:user user:email`, Google `openid email profile`), a random `state` and a PKCE S256 `code_challenge`. ' +
      `The state (hashed) and the PKCE verifier are kept server-side for 10 minutes and work once; the state is also set in the HttpOnly cookie \`${OAUTH_STATE_COOKIE}\`, which the callback requires.`,
  })
  @ApiParam(providerParam)
  @ApiFoundResponse({
    description: 'Redirect to the provider',
    headers: { ...location('The provider\'s authorize URL'), 'Set-Cookie': { description: `\`${OAUTH_STATE_COOKIE}\`: HttpOnly, SameSite=Lax, 10 minutes`, schema: { type: 'string' } } },
  })
  @ApiErrors(PARAM_ERRORS, PROVIDER_NOT_FOUND)
  async start(@Param('provider') provider: string, @Res() res: Response): Promise<void> {
    const { url, state } = await this.oauth.start(provider);
    res.cookie(OAUTH_STATE_COOKIE, state, { ...this.stateCookieOptions(), maxAge: OAUTH_STATE_TTL_SECONDS * 1000 });
    res.redirect(302, url);
  }

  @Get(':provider/callback')
  @ApiOperation({
    summary: 'OAuth callback (the provider redirects here): logs in and 302 to the dashboard',
    description:
      'Checks `state` against the server-side record and the browser cookie (single use, 10 minutes), exchanges `code` with the PKCE verifier, and reads the verified email ' +
      '(GitHub: the primary address of `/user/emails` when `verified`; Google: userinfo with `email_verified`). ' +
      'Logs in the user linked to this provider account (a later email change at the provider still finds them), else the user with that email (the account gets linked), ' +
      `else creates a user (no password; verified email) unless DISABLE_SIGNUPS. Sets the same \`${SESSION_COOKIE}\` cookie as POST /auth/login and redirects to DASHBOARD_URL (default PUBLIC_BASE_URL).`,
  })
  @ApiParam(providerParam)
  @ApiQuery({ name: 'code', required: false, description: 'Authorization code from the provider' })
  @ApiQuery({ name: 'state', required: true })
  @ApiQuery({ name: 'error', required: false, description: 'Set by the provider when the login failed or was cancelled (`access_denied`: 403 `OAUTH_ACCESS_DENIED`)' })
  @ApiFoundResponse({
    description: 'Logged in: redirect to the dashboard',
    headers: { ...location('DASHBOARD_URL (default PUBLIC_BASE_URL)'), 'Set-Cookie': { description: `\`${SESSION_COOKIE}\` as set by POST /auth/login`, schema: { type: 'string' } } },
  })
  @ApiErrors(PARAM_ERRORS, PROVIDER_NOT_FOUND, {
    400: '`INVALID_OAUTH_STATE`: the state is missing, unknown, expired, reused or not this browser\'s; `INVALID_OAUTH_CODE`: no `code`',
    403: '`OAUTH_EMAIL_UNVERIFIED`: the provider account has no verified email; `OAUTH_ACCESS_DENIED`: the login was cancelled at the provider; `SIGNUPS_DISABLED`: no account has the email and signups are disabled',
    502: '`OAUTH_PROVIDER_ERROR`: the token exchange was refused, the provider was unreachable or answered unexpectedly',
  })
  async callback(@Param('provider') provider: string, @Query() query: OAuthCallbackQuery, @Req() req: Request, @Res() res: Response): Promise<void> {
    const browserState = cookieValue(req, OAUTH_STATE_COOKIE);
    res.clearCookie(OAUTH_STATE_COOKIE, this.stateCookieOptions());
    const user = await this.oauth.finish(provider, query, browserState);
    setSessionCookie(res, this.sessions.issue(user), this.config);
    res.redirect(302, this.config.DASHBOARD_URL ?? this.config.PUBLIC_BASE_URL);
  }
}
