import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ConversationApiConfig } from '../config';
import { UsersService } from '../users/users.service';
import { OpenAccount } from './open-account';

/**
 * ARCHITECTURE.md "First credentials": with CONVERSATION_ADMIN_EMAIL and CONVERSATION_ADMIN_PASSWORD
 * set, the first administrator (and its account) is created at start when no user has that email.
 * Idempotent; an existing user is never changed (its password stays what it became).
 */
@Injectable()
export class FirstAdminService implements OnApplicationBootstrap {
  private readonly logger = new Logger(FirstAdminService.name);

  constructor(
    private readonly config: ConversationApiConfig,
    private readonly users: UsersService,
    private readonly openAccount: OpenAccount,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const email = this.config.CONVERSATION_ADMIN_EMAIL;
    const password = this.config.CONVERSATION_ADMIN_PASSWORD;
    if (!email || !password) {
      if (email || password) this.logger.warn('CONVERSATION_ADMIN_EMAIL and CONVERSATION_ADMIN_PASSWORD must both be set to create the first administrator');
      return;
    }
    if (await this.users.findByEmail(email)) return;
    try {
      const created = await this.openAccount.execute(this.config.CONVERSATION_ACCOUNT_NAME, { email, name: 'Administrator', password });
      this.logger.log(`created the first administrator ${email} of account ${created.account.id}`);
    } catch (err) {
      // Another replica starting at the same moment created it first.
      if (await this.users.findByEmail(email)) return;
      throw err;
    }
  }
}
