import { Global, Module } from '@nestjs/common';
import { RateLimiter } from '@platform/rate-limit';
import { AuthApiConfig } from '../config';
import { LoginRateLimiter } from './login-rate-limiter';

/**
 * The login limits of both realms on the app's one `RateLimiter` (RateLimitModule, keys under
 * `${REDIS_KEY_PREFIX}login:`), so the realms share their counters.
 */
@Global()
@Module({
  providers: [
    {
      provide: LoginRateLimiter,
      inject: [RateLimiter, AuthApiConfig],
      useFactory: (limiter: RateLimiter, config: AuthApiConfig) =>
        new LoginRateLimiter(limiter, {
          perAccount: config.AUTH_LOGIN_LIMIT_PER_ACCOUNT,
          perIp: config.AUTH_LOGIN_LIMIT_PER_IP,
          windowMs: config.AUTH_LOGIN_LIMIT_WINDOW_SECONDS * 1000,
        }),
    },
  ],
  exports: [LoginRateLimiter],
})
export class LoginRateLimitModule {}
