import { ApiProperty } from '@nestjs/swagger';
import { OAUTH_PROVIDERS } from '../../oauth/oauth-providers';

/** GET /config: what this server offers (no secrets). */
export class ServerConfigDto {
  @ApiProperty({ description: 'POST /auth/signup is open (DISABLE_SIGNUPS unset)' })
  signups: boolean;

  @ApiProperty({ description: 'SMTP_URL is set: email is delivered (otherwise stored unsent)' })
  smtp: boolean;

  @ApiProperty({ description: 'POST /v1/verify uses the DNS_SERVERS of the configuration (otherwise the system resolver)' })
  dnsServers: boolean;

  @ApiProperty({ enum: OAUTH_PROVIDERS, isArray: true, description: 'The configured OAuth login providers' })
  oauthProviders: string[];

  @ApiProperty({ description: 'Billing through Stripe is configured (STRIPE_SECRET_KEY and friends): checkout, portal and invoices answer; false: they answer 503 BILLING_DISABLED (the monthly caps apply either way)' })
  billing: boolean;

  @ApiProperty({ type: 'integer', minimum: 1, example: 1000, description: 'Requests per minute per project (EMAIL_RATE_LIMIT_PER_MINUTE)' })
  rateLimitPerMinute: number;
}
