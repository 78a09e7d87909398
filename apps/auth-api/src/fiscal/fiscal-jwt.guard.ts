import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { JwtBearerGuard } from '@platform/auth';
import type { FiscalUser } from './entities/fiscal-user.entity';
import { FiscalAuthService, invalidToken } from './fiscal-auth.service';

/** Part B bearer tokens only (audience "fiscal"); a missing, bad, expired or inactive user's token → 401 `{detail}`. */
@Injectable()
export class FiscalJwtGuard extends JwtBearerGuard<FiscalUser> {
  constructor(
    reflector: Reflector,
    private readonly auth: FiscalAuthService,
  ) {
    super(reflector);
  }

  protected authenticate(token: string): Promise<FiscalUser | null> {
    return this.auth.authenticate(token);
  }

  protected override unauthorized(): Error {
    return invalidToken();
  }
}
