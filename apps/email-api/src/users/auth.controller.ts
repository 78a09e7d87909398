import { Body, Controller, Get, HttpCode, Ip, Post, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { SessionService, setSessionCookie } from '../access/session.service';
import { ApiErrors, JSON_BODY_ERRORS } from '../common/api-errors.decorator';
import { EmailApiConfig, SESSION_COOKIE } from '../config';
import { OAuthService } from '../oauth/oauth.service';
import { AuthService } from './auth.service';
import { EmailOnlyDto, LoginDto, ResetPasswordDto, SignupDto, TokenDto } from './dto/auth.dto';
import { MessageDto, OAuthConfigDto, UserDto } from './dto/user.dto';
import { userView } from './user.view';

const ACCEPTED = { message: 'If an account exists for this email, a message is on its way' };

const AUTH_LIMITED =
  '`RATE_LIMIT_EXCEEDED` with `Retry-After`: too many attempts from this IP (AUTH_LIMIT_PER_IP) or for this account (AUTH_LIMIT_PER_ACCOUNT) in AUTH_LIMIT_WINDOW_SECONDS (login: failed attempts only)';
const SESSION_SET = { 'Set-Cookie': { description: `\`${SESSION_COOKIE}=<jwt>\`: HttpOnly, SameSite=Lax, Path=/, 7 days (Secure in production)`, schema: { type: 'string' } } };
const BAD_TOKEN = { 400: '`INVALID_TOKEN`: the token is unknown, expired or already used' };

@ApiTags('Auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionService,
    private readonly config: EmailApiConfig,
    private readonly oauth: OAuthService,
  ) {}

  private setSession(res: Response, token: string): void {
    setSessionCookie(res, token, this.config);
  }

  @Post('signup')
  @ApiOperation({
    summary: 'Create an account (403 SIGNUPS_DISABLED when DISABLE_SIGNUPS is set)',
    description: 'Logs the new user in (session cookie) and mails an email-verification token (valid 24 h, single use).',
  })
  @ApiCreatedResponse({ type: UserDto, description: 'The new account, logged in', headers: SESSION_SET })
  @ApiErrors(JSON_BODY_ERRORS, {
    403: '`SIGNUPS_DISABLED`: DISABLE_SIGNUPS is set on this server',
    409: '`EMAIL_TAKEN`: an account with this email exists',
    429: AUTH_LIMITED,
  })
  async signup(@Body() body: SignupDto, @Ip() ip: string, @Res({ passthrough: true }) res: Response) {
    const user = await this.auth.signup(body.email, body.password, body.name, ip);
    this.setSession(res, this.sessions.issue(user));
    return userView(user);
  }

  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Log in: sets the HttpOnly session cookie `email_session` (7 days, SameSite=Lax)' })
  @ApiOkResponse({ type: UserDto, description: 'The logged-in account', headers: SESSION_SET })
  @ApiErrors(JSON_BODY_ERRORS, { 401: '`INVALID_CREDENTIALS`: unknown email or wrong password (also for accounts without a password)', 429: AUTH_LIMITED })
  async login(@Body() body: LoginDto, @Ip() ip: string, @Res({ passthrough: true }) res: Response) {
    const user = await this.auth.login(body.email, body.password, ip);
    this.setSession(res, this.sessions.issue(user));
    return userView(user);
  }

  @Get('logout')
  @ApiOperation({ summary: 'Log out: clears the session cookie' })
  @ApiOkResponse({ type: MessageDto, description: '`{"message": "Logged out"}`; Set-Cookie clears the session cookie (always, even without a session)' })
  @ApiErrors()
  logout(@Res({ passthrough: true }) res: Response) {
    res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: this.config.NODE_ENV === 'production', path: '/' });
    return { message: 'Logged out' };
  }

  @Get('oauth-config')
  @ApiOperation({
    summary: 'Login methods this server offers',
    description:
      '`providers` lists exactly the OAuth providers configured on this server (`github` when GITHUB_CLIENT_ID/SECRET are set, `google` when GOOGLE_CLIENT_ID/SECRET are set); ' +
      'a login starts with a browser visit to `GET /auth/oauth/{provider}`.',
  })
  @ApiOkResponse({ type: OAuthConfigDto })
  @ApiErrors()
  oauthConfig() {
    return { password: true, signupsEnabled: !this.config.DISABLE_SIGNUPS, providers: this.oauth.providerNames() };
  }

  @Post('verify-email')
  @HttpCode(200)
  @ApiOperation({ summary: 'Verify the email address with the mailed token (single use, 24 h)' })
  @ApiOkResponse({ type: MessageDto, description: '`{"message": "Email verified"}`' })
  @ApiErrors(JSON_BODY_ERRORS, BAD_TOKEN)
  async verifyEmail(@Body() body: TokenDto) {
    await this.auth.verifyEmail(body.token);
    return { message: 'Email verified' };
  }

  @Post('request-verification')
  @HttpCode(202)
  @ApiOperation({ summary: 'Mail a new verification token (earlier ones stop working); always 202' })
  @ApiAcceptedResponse({ type: MessageDto, description: 'The same answer whether or not the account exists (no account enumeration)' })
  @ApiErrors(JSON_BODY_ERRORS)
  async requestVerification(@Body() body: EmailOnlyDto) {
    await this.auth.requestVerification(body.email);
    return ACCEPTED;
  }

  @Post('request-password-reset')
  @HttpCode(202)
  @ApiOperation({ summary: 'Mail a password-reset token (single use, 1 h); always 202' })
  @ApiAcceptedResponse({ type: MessageDto, description: 'The same answer whether or not the account exists (no account enumeration)' })
  @ApiErrors(JSON_BODY_ERRORS, { 429: AUTH_LIMITED })
  async requestPasswordReset(@Body() body: EmailOnlyDto, @Ip() ip: string) {
    await this.auth.requestPasswordReset(body.email, ip);
    return ACCEPTED;
  }

  @Post('reset-password')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set a new password with the mailed token; ends every existing session' })
  @ApiOkResponse({ type: MessageDto, description: '`{"message": "Password changed; log in again"}`: every session of the account has ended' })
  @ApiErrors(JSON_BODY_ERRORS, BAD_TOKEN)
  async resetPassword(@Body() body: ResetPasswordDto) {
    await this.auth.resetPassword(body.token, body.password);
    return { message: 'Password changed; log in again' };
  }
}
