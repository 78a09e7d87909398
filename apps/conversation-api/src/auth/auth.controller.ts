import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { UserDto, userView } from '../users/dto/user.dto';
import { UsersService } from '../users/users.service';
import { ApiErrorAnswer, Public, RequirePermission } from '../access/access.decorators';
import { AuthService } from './auth.service';
import { LoginDto, LogoutResultDto, PasswordResetConfirmDto, PasswordResetRequestDto, RefreshDto, ResetDoneDto, ResetRequestedDto, TokenPairDto } from './dto/auth.dto';
import { CurrentPrincipal, type Principal } from '../access/principal';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
  ) {}

  @Post('login')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Log in', description: 'Returns an access token (15 minutes) and a refresh token (7 days). 401 `INVALID_CREDENTIALS`.' })
  @ApiOkEnvelope(TokenPairDto)
  @ApiErrorAnswer(401, '`INVALID_CREDENTIALS`')
  login(@Body() body: LoginDto) {
    return this.auth.login(body.email, body.password);
  }

  @Post('refresh')
  @HttpCode(200)
  @Public()
  @ApiOperation({
    summary: 'Rotate the refresh token',
    description: 'Uses the refresh token up and returns a new pair. 401 `INVALID_REFRESH_TOKEN` (unknown, expired, revoked); 401 `REFRESH_TOKEN_REUSED` when a used token is presented again: the whole session is revoked.',
  })
  @ApiOkEnvelope(TokenPairDto)
  @ApiErrorAnswer(401, '`INVALID_REFRESH_TOKEN` or `REFRESH_TOKEN_REUSED`')
  refresh(@Body() body: RefreshDto) {
    return this.auth.refresh(body.refresh_token);
  }

  @Post('logout')
  @HttpCode(200)
  @RequirePermission()
  @ApiOperation({ summary: 'Log out', description: "Revokes the caller's session: its refresh tokens and access tokens stop working." })
  @ApiOkEnvelope(LogoutResultDto)
  logout(@CurrentPrincipal() principal: Principal) {
    return this.auth.logout(principal);
  }

  @Get('me')
  @RequirePermission()
  @ApiOperation({ summary: 'The caller' })
  @ApiOkEnvelope(UserDto)
  async me(@CurrentPrincipal() principal: Principal) {
    return userView(await this.users.get(principal.accountId, principal.userId));
  }

  @Post('password-reset')
  @HttpCode(202)
  @Public()
  @ApiOperation({
    summary: 'Ask for a password reset',
    description: 'Queues a mail with a single-use link (valid one hour), sent through SMTP_URL by the mail worker, when the email belongs to an active user; the answer is the same otherwise and never waits for SMTP. Without SMTP_URL the mail is stored and `mail` is `unsent`.',
  })
  @ApiOkEnvelope(ResetRequestedDto, { status: 202 })
  requestReset(@Body() body: PasswordResetRequestDto) {
    return this.auth.requestPasswordReset(body.email);
  }

  @Post('password-reset/confirm')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Set a new password with the mailed token', description: 'Ends every session of the user. 400 `INVALID_RESET_TOKEN` when the token is unknown, used or expired.' })
  @ApiOkEnvelope(ResetDoneDto)
  @ApiErrorAnswer(400, '`INVALID_RESET_TOKEN`: unknown, used or expired')
  confirmReset(@Body() body: PasswordResetConfirmDto) {
    return this.auth.confirmPasswordReset(body.token, body.password);
  }
}
