import { Body, Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { PublicRateLimit } from '../portal/public-rate-limit.guard';
import { DASHBOARD_CSP, DASHBOARD_CSS, DASHBOARD_HTML, DASHBOARD_JS } from './dashboard-assets';
import { DashboardService } from './dashboard.service';

export class DashboardLoginDto {
  @ApiProperty({ example: 'admin@logistics.example' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  email!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  password!: string;
}

@ApiTags('dashboard')
@Controller('dashboard')
export class DashboardController {
  constructor(private readonly dashboard: DashboardService) {}

  @Get()
  @ApiOperation({
    summary: 'The live error dashboard (HTML page)',
    description:
      'A plain page (its script, style and the Socket.IO client served by this service; CSP `default-src \'none\'`, scripts and connections to this origin only): ' +
      'logs in through auth-api\'s logistics realm (`POST /dashboard/login`), lists the error records, updates live over the `/errors` socket and changes their state.',
  })
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', DASHBOARD_CSP)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Referrer-Policy', 'no-referrer')
  @Header('X-Frame-Options', 'DENY')
  @Header('Cache-Control', 'no-store')
  page(): string {
    return DASHBOARD_HTML;
  }

  @Get('app.js')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  script(): string {
    return DASHBOARD_JS;
  }

  @Get('app.css')
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/css; charset=utf-8')
  style(): string {
    return DASHBOARD_CSS;
  }

  @Post('login')
  @HttpCode(200)
  @PublicRateLimit('login')
  @ApiOperation({
    summary: 'The dashboard\'s login (administrators of auth-api\'s logistics realm)',
    description: '`{email, password}` → `{success, access_token, expires_in, role}` from auth-api; 401 `INVALID_CREDENTIALS`, 403 `FORBIDDEN` for another role; 10 attempts per minute per IP.',
  })
  @ApiOkResponse({ description: '`{success, access_token, expires_in, role}`' })
  @ApiUnauthorizedResponse({ description: '`INVALID_CREDENTIALS`' })
  @ApiForbiddenResponse({ description: '`FORBIDDEN`: the account is no administrator' })
  @ApiResponse({ status: 502, description: '`AUTH_UNAVAILABLE`: auth-api did not answer as expected' })
  @ApiResponse({ status: 503, description: '`AUTH_NOT_CONFIGURED`: neither AUTH_URL nor AUTH_JWKS_URL is set' })
  async login(@Body() dto: DashboardLoginDto): Promise<Record<string, unknown>> {
    return { success: true, ...(await this.dashboard.login(dto.email, dto.password)) };
  }
}
