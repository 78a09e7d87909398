import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ContactsService } from '../contacts/contacts.service';
import { MailQueue } from '../emails/mail-queue.service';
import { suppressedReasonText } from '../suppressions/suppression';
import { SuppressionsService } from '../suppressions/suppressions.service';
import { ConfirmationMails } from './confirmation-mails';

/**
 * Queues the confirmation mails that signups asked for (the contacts' `confirmation_due_at`, set by
 * the contact upsert of POST /v1/track, imports and POST /contacts): in one transaction the due
 * contacts are taken and their mails queued, so each mail is queued exactly once — by one replica,
 * and again after a crash only if the transaction did not commit. Contacts no longer pending (they
 * confirmed or unsubscribed meanwhile) are skipped. A suppressed address (bounce, complaint, manual)
 * gets a SUPPRESSED record; an `unsubscribe` entry does not stop it (the person signs up again).
 */
@Injectable()
export class SendConfirmations {
  constructor(
    private readonly transactions: Transactions,
    private readonly contacts: ContactsService,
    private readonly mails: ConfirmationMails,
    private readonly suppressions: SuppressionsService,
    private readonly queue: MailQueue,
  ) {}

  /** Answers how many contacts were taken (mails queued or skipped). */
  async execute(limit = 50): Promise<number> {
    const taken = await this.transactions.transaction(async () => {
      const due = await this.contacts.takeDueConfirmations(limit);
      for (const contact of due) {
        if (!contact.pending) continue;
        const mail = await this.mails.build(contact.projectId, contact);
        const suppression = (await this.suppressions.blocking(contact.projectId, [contact.email], mail.kind)).get(contact.email);
        await this.queue.enqueue(mail, suppression ? suppressedReasonText(suppression) : undefined);
      }
      return due.length;
    });
    if (taken > 0) this.queue.flush();
    return taken;
  }
}
