import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors.decorator';
import { EmailApiConfig } from '../config';
import { configuredProviders } from '../oauth/oauth-providers';
import { ServerConfigDto } from './dto/config.dto';

@ApiTags('System')
@Controller('config')
export class ConfigController {
  constructor(private readonly config: EmailApiConfig) {}

  @Get()
  @ApiOperation({
    summary: 'Feature flags of this server (no authentication)',
    description: '`signups`: POST /auth/signup is open; `smtp`: mail is delivered (else stored unsent); `dnsServers`: /v1/verify uses custom DNS servers; `oauthProviders`: the configured OAuth login providers (`github`, `google`); `billing`: billing through Stripe is on (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_ID set; off: the checkout, portal and invoice routes answer 503 BILLING_DISABLED, the monthly caps still apply).',
  })
  @ApiOkResponse({ type: ServerConfigDto })
  @ApiErrors()
  get() {
    return {
      signups: !this.config.DISABLE_SIGNUPS,
      smtp: Boolean(this.config.SMTP_URL),
      dnsServers: Boolean(this.config.DNS_SERVERS),
      oauthProviders: configuredProviders(this.config).map((p) => p.name),
      billing: Boolean(this.config.STRIPE_SECRET_KEY),
      rateLimitPerMinute: this.config.EMAIL_RATE_LIMIT_PER_MINUTE,
    };
  }
}
