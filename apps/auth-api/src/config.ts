import { BaseConfig, RequiredInProduction } from '@platform/platform';
import { IsEmail, IsInt, IsNotEmpty, IsString, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';

/** Token lifetimes are fixed by the spec (part B: 24 hours; part G: access 1 hour, refresh 7 days). */
export const FISCAL_ACCESS_TTL_SECONDS = 24 * 60 * 60;
export const LOGISTICS_ACCESS_TTL_SECONDS = 60 * 60;
export const LOGISTICS_REFRESH_TTL_SECONDS = 7 * 24 * 60 * 60;

export class AuthApiConfig extends BaseConfig {
  /**
   * PEM of the RSA private key (PKCS#8 or PKCS#1) signing every token; `\n` escapes are accepted.
   * Required in production; in development and tests a key is generated once and kept in
   * `${DATA_DIR}/auth-api/jwt-private.pem` (mode 0600).
   */
  @RequiredInProduction()
  @Matches(/-----BEGIN (RSA )?PRIVATE KEY-----/, { message: 'AUTH_JWT_PRIVATE_KEY must be a PEM private key (RSA)' })
  AUTH_JWT_PRIVATE_KEY?: string;

  /** `iss` of every token, checked on verification. */
  @IsString()
  @IsNotEmpty()
  AUTH_ISSUER = 'auth-api';

  /** First user of part B (role admin), created at start when missing. Set both or neither. */
  @ValidateIf((c: AuthApiConfig) => c.AUTH_ADMIN_EMAIL !== undefined || c.AUTH_ADMIN_PASSWORD !== undefined)
  @IsEmail({}, { message: 'AUTH_ADMIN_EMAIL must be an email address (set it together with AUTH_ADMIN_PASSWORD)' })
  AUTH_ADMIN_EMAIL?: string;

  @ValidateIf((c: AuthApiConfig) => c.AUTH_ADMIN_EMAIL !== undefined || c.AUTH_ADMIN_PASSWORD !== undefined)
  @IsString()
  @MinLength(8, { message: 'AUTH_ADMIN_PASSWORD must have at least 8 characters (set it together with AUTH_ADMIN_EMAIL)' })
  AUTH_ADMIN_PASSWORD?: string;

  /** First admin of part G, created at start when missing. Set both or neither. */
  @ValidateIf((c: AuthApiConfig) => c.LOGISTICS_ADMIN_EMAIL !== undefined || c.LOGISTICS_ADMIN_PASSWORD !== undefined)
  @IsEmail({}, { message: 'LOGISTICS_ADMIN_EMAIL must be an email address (set it together with LOGISTICS_ADMIN_PASSWORD)' })
  LOGISTICS_ADMIN_EMAIL?: string;

  @ValidateIf((c: AuthApiConfig) => c.LOGISTICS_ADMIN_EMAIL !== undefined || c.LOGISTICS_ADMIN_PASSWORD !== undefined)
  @IsString()
  @MinLength(8, { message: 'LOGISTICS_ADMIN_PASSWORD must have at least 8 characters (set it together with LOGISTICS_ADMIN_EMAIL)' })
  LOGISTICS_ADMIN_PASSWORD?: string;

  /** Login attempts per client IP and account per window (both realms). */
  @IsInt()
  @Min(1)
  @Max(100_000)
  AUTH_LOGIN_LIMIT_PER_ACCOUNT = 10;

  /** Login attempts per client IP per window, whatever the account. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  AUTH_LOGIN_LIMIT_PER_IP = 100;

  /** Length of the rate-limit window in seconds. */
  @IsInt()
  @Min(1)
  @Max(86_400)
  AUTH_LOGIN_LIMIT_WINDOW_SECONDS = 60;
}
