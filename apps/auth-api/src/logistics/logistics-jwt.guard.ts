import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtBearerGuard } from '@platform/auth';
import { LogisticsAuthService, logisticsUnauthorized, type LogisticsPrincipal } from './logistics-auth.service';

/** Logistics-realm bearer tokens only (audience "logistics", realm claim); revoked sessions and inactive users → 401. */
@Injectable()
export class LogisticsJwtGuard extends JwtBearerGuard<LogisticsPrincipal> {
  constructor(
    reflector: Reflector,
    private readonly auth: LogisticsAuthService,
  ) {
    super(reflector);
  }

  protected authenticate(token: string): Promise<LogisticsPrincipal | null> {
    return this.auth.authenticate(token);
  }

  protected override unauthorized(): Error {
    return logisticsUnauthorized();
  }
}
