import { Injectable, Logger } from '@nestjs/common';
import type { AccountEntity } from '../accounts/entities/account.entity';
import { ContactsService } from '../contacts/contacts.service';
import { GraphApiError } from '../graph/graph-api.error';
import { GraphService } from '../graph/graph.service';
import type { ContactEntity } from '../contacts/entities/contact.entity';
import type { RunRow } from '../runs/run';
import { RunsService } from '../runs/runs.service';

/** The person's profile on the platform (handle, follow status), stored on their contact (and the handle on the run) as it is read. */
@Injectable()
export class ReadProfile {
  private readonly logger = new Logger(ReadProfile.name);

  constructor(
    private readonly graph: GraphService,
    private readonly contacts: ContactsService,
    private readonly runs: RunsService,
  ) {}

  /**
   * A run started by a message has no handle (messages carry none); the person messaged us, so the
   * profile may be read. Sets `run.username` from the contact or the profile and stores it on the run.
   */
  async fillUsername(account: AccountEntity, run: RunRow, contact: ContactEntity | null): Promise<void> {
    run.username = contact?.username ?? (await this.username(account, run.contact_ig_id));
    if (run.username) await this.runs.setUsername(run.id, run.username);
  }

  /** The person's handle from the profile, best effort (null when the platform does not answer). */
  async username(account: AccountEntity, igId: string): Promise<string | null> {
    try {
      const profile = await this.graph.client(account, 'background').getUserProfile(igId);
      if (profile.username) await this.contacts.setFollows(account.id, igId, typeof profile.is_user_follow_business === 'boolean' ? profile.is_user_follow_business : null, profile.username);
      return profile.username ?? null;
    } catch (err) {
      this.logger.debug(`profile of ${igId} not readable: ${(err as Error).message}`);
      return null;
    }
  }

  /** is_user_follow_business; null when the platform does not say (consent missing, field absent). */
  async followStatus(account: AccountEntity, run: RunRow): Promise<boolean | null> {
    try {
      const profile = await this.graph.client(account, 'background').getUserProfile(run.contact_ig_id);
      const follows = typeof profile.is_user_follow_business === 'boolean' ? profile.is_user_follow_business : null;
      await this.contacts.setFollows(account.id, run.contact_ig_id, follows, profile.username ?? null);
      return follows;
    } catch (err) {
      if (err instanceof GraphApiError && !err.retryable && err.kind === 'platform') return null;
      throw err;
    }
  }
}
