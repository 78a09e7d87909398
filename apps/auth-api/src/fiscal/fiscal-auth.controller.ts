import { Body, Controller, Get, HttpCode, Ip, Post, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { CurrentUser } from '@platform/auth';
import { DetailErrorDto } from '../common/detail-error.dto';
import { LoginFormDto } from './dto/login-form.dto';
import { TokenResponseDto } from './dto/token-response.dto';
import { UserDto } from './dto/user.dto';
import type { FiscalUser } from './entities/fiscal-user.entity';
import { FiscalAuthService, type TokenResponse } from './fiscal-auth.service';
import { FormBodyGuard } from './form-body.guard';
import { FiscalJwtGuard } from './fiscal-jwt.guard';

const RATE_LIMIT_DOC =
  'Failed login attempts are limited per client IP and account (default 10 per minute) and per client IP (default 100 per minute); ' +
  'at the limit every attempt of that client is refused until the window ends: 429 `{detail}` with `Retry-After` (seconds). ' +
  'Successful logins do not count.';

@ApiTags('auth (part B: login API)')
@Controller('api/v1/auth')
export class FiscalAuthController {
  constructor(private readonly auth: FiscalAuthService) {}

  @Post('login')
  @HttpCode(200)
  @UseGuards(FormBodyGuard)
  @ApiOperation({
    summary: 'Log in with email and password',
    description: `Form fields \`username\` (the email) and \`password\`, sent as \`application/x-www-form-urlencoded\` (another content type: 422). ${RATE_LIMIT_DOC}`,
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: LoginFormDto })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiUnauthorizedResponse({ type: DetailErrorDto, description: '`{detail: "Incorrect email or password"}` (also for inactive users)' })
  @ApiUnprocessableEntityResponse({ type: DetailErrorDto, description: 'A form field is missing or invalid, or the body is not a urlencoded form' })
  @ApiTooManyRequestsResponse({ type: DetailErrorDto, description: RATE_LIMIT_DOC })
  login(@Body() form: LoginFormDto, @Ip() ip: string): Promise<TokenResponse> {
    return this.auth.login(form.username, form.password, ip);
  }

  @Get('me')
  @UseGuards(FiscalJwtGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'The user the bearer token belongs to' })
  @ApiOkResponse({ type: UserDto })
  @ApiUnauthorizedResponse({ type: DetailErrorDto, description: '`{detail: "Could not validate credentials"}`: missing, malformed, expired or badly signed token, or inactive user' })
  me(@CurrentUser() user: FiscalUser): UserDto {
    return UserDto.from(user);
  }

  @Post('refresh')
  @HttpCode(200)
  @UseGuards(FiscalJwtGuard)
  @ApiBearerAuth()
  @ApiOperation({ summary: 'A new 24-hour token for the bearer of a valid one' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiUnauthorizedResponse({ type: DetailErrorDto, description: '`{detail: "Could not validate credentials"}`' })
  refresh(@CurrentUser() user: FiscalUser): Promise<TokenResponse> {
    return this.auth.issue(user);
  }
}
