import { Body, Controller, Get, HttpCode, Ip, Post, Req, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { bearerToken, CurrentUser, type GuardRequest } from '@platform/auth';
import { DetailErrorDto } from '../common/detail-error.dto';
import { LogisticsLoginDto, LogisticsTokenResponseDto, LogoutRequestDto, RefreshRequestDto } from './dto/logistics-auth.dto';
import { LogisticsUserDto } from './dto/logistics-user.dto';
import { LogisticsAuthService, type LogisticsPrincipal, type LogisticsTokens } from './logistics-auth.service';
import { LogisticsJwtGuard } from './logistics-jwt.guard';

/** The request as the handlers see it: headers and the request id (`X-Request-Id`), which events carry as correlation id. */
type AuthRequest = GuardRequest & { id?: unknown };

const requestId = (req: AuthRequest): string | undefined => (typeof req.id === 'string' ? req.id : undefined);

const RATE_LIMIT_DOC =
  'Failed login attempts are limited per client IP and account (default 10 per minute) and per client IP (default 100 per minute); ' +
  'at the limit every attempt of that client is refused until the window ends: 429 `{detail}` with `Retry-After` (seconds). ' +
  'Successful logins do not count.';

@ApiTags('logistics auth (part G)')
@Controller('api/v1/logistics/auth')
export class LogisticsAuthController {
  constructor(private readonly auth: LogisticsAuthService) {}

  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Log in to the logistics realm',
    description: `Returns a 1-hour access token and a 7-day refresh token (a new login session). Errors are \`{detail}\`. ${RATE_LIMIT_DOC}`,
  })
  @ApiOkResponse({ type: LogisticsTokenResponseDto })
  @ApiUnauthorizedResponse({ type: DetailErrorDto, description: '`{detail: "Incorrect email or password"}` (also for inactive users)' })
  @ApiUnprocessableEntityResponse({ type: DetailErrorDto, description: 'Missing or invalid field' })
  @ApiTooManyRequestsResponse({ type: DetailErrorDto, description: RATE_LIMIT_DOC })
  login(@Body() body: LogisticsLoginDto, @Ip() ip: string): Promise<LogisticsTokens> {
    return this.auth.login(body.email, body.password, ip);
  }

  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate a refresh token',
    description:
      'Uses the refresh token up and returns a new access token and the next refresh token of the same session. ' +
      'Presenting a refresh token that was already used revokes the whole session (every token of its family), publishes the event ' +
      '`auth.session_revoked` (reason `reuse_detected`) and answers 401.',
  })
  @ApiOkResponse({ type: LogisticsTokenResponseDto })
  @ApiUnauthorizedResponse({ type: DetailErrorDto, description: 'Unknown, expired, revoked or reused refresh token' })
  @ApiUnprocessableEntityResponse({ type: DetailErrorDto })
  refresh(@Body() body: RefreshRequestDto, @Req() req: AuthRequest): Promise<LogisticsTokens> {
    return this.auth.refresh(body.refresh_token, requestId(req));
  }

  @Post('logout')
  @HttpCode(204)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'End a session',
    description:
      'Send `{refresh_token}` in the body, or the access token as `Authorization: Bearer`, or both. The session (refresh-token family) ' +
      'of the refresh token — or, without one, the session of the access token — is revoked: its refresh tokens stop working and ' +
      'its access tokens are refused by this service; the event `auth.session_revoked` (reason `logout`, `sessionId` = the tokens\' `sid`) ' +
      'tells other services to refuse them too. Idempotent: an unknown or already revoked refresh token also gives 204 (and no event).',
  })
  @ApiNoContentResponse({ description: 'Session revoked' })
  @ApiUnauthorizedResponse({ type: DetailErrorDto, description: 'Neither a refresh token nor a valid access token was sent' })
  async logout(@Body() body: LogoutRequestDto, @Req() req: AuthRequest): Promise<void> {
    await this.auth.logout(body.refresh_token, bearerToken(req), requestId(req));
  }

  @Get('me')
  @UseGuards(LogisticsJwtGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The logistics user the access token belongs to' })
  @ApiOkResponse({ type: LogisticsUserDto })
  @ApiUnauthorizedResponse({ type: DetailErrorDto, description: '`{detail: "Could not validate credentials"}`' })
  me(@CurrentUser() principal: LogisticsPrincipal): LogisticsUserDto {
    return LogisticsUserDto.from(principal.user);
  }
}
