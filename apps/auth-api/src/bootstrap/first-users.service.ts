import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { AuthApiConfig } from '../config';
import { FiscalAuthService } from '../fiscal/fiscal-auth.service';
import { LogisticsUsersService } from '../logistics/logistics-users.service';

/**
 * Creates the first users named by the environment when they are missing: `AUTH_ADMIN_EMAIL` /
 * `AUTH_ADMIN_PASSWORD` (part B, role admin) and `LOGISTICS_ADMIN_EMAIL` /
 * `LOGISTICS_ADMIN_PASSWORD` (part G admin). Idempotent and safe with replicas starting at once
 * (insert … on conflict do nothing); an existing user is never changed (nor its password).
 */
@Injectable()
export class FirstUsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(FirstUsersService.name);

  constructor(
    private readonly config: AuthApiConfig,
    private readonly fiscal: FiscalAuthService,
    private readonly logistics: LogisticsUsersService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensure();
  }

  async ensure(): Promise<void> {
    const c = this.config;
    if (c.AUTH_ADMIN_EMAIL && c.AUTH_ADMIN_PASSWORD) {
      const created = await this.fiscal.ensureUser({ email: c.AUTH_ADMIN_EMAIL, password: c.AUTH_ADMIN_PASSWORD, role: 'admin', fullName: 'Administrator' });
      if (created) this.logger.log(`created the first login API user ${c.AUTH_ADMIN_EMAIL.toLowerCase()} (role admin)`);
    }
    if (c.LOGISTICS_ADMIN_EMAIL && c.LOGISTICS_ADMIN_PASSWORD) {
      const created = await this.logistics.ensure({
        email: c.LOGISTICS_ADMIN_EMAIL,
        password: c.LOGISTICS_ADMIN_PASSWORD,
        role: 'admin',
        fullName: 'Administrator',
      });
      if (created) this.logger.log(`created the first logistics admin ${c.LOGISTICS_ADMIN_EMAIL.toLowerCase()}`);
    }
  }
}
