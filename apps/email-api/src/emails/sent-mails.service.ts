import { Injectable } from '@nestjs/common';
import { EmailsRepository } from './emails.repository';

/** A sent mail as the feedback loop (bounces, complaints, provider events, replies) sees it. */
export interface SentMail {
  id: string;
  /** null: the platform's own mail (no project). */
  projectId: string | null;
  /** The recipient's address, lower-cased (`Name <a@b>` → `a@b`). */
  recipient: string;
  fromEmail: string;
  messageId: string | null;
}

/** Finds sent mails for the feedback loop: by id (return paths, Message-IDs) or by the outgoing server's id. */
@Injectable()
export class SentMails {
  constructor(private readonly emails: EmailsRepository) {}

  async find(ids: string[]): Promise<SentMail[]> {
    const rows = await this.emails.findSent([...new Set(ids)]);
    return rows.map((r) => ({
      id: r.id,
      projectId: r.project_id,
      recipient: (/<([^>]+)>\s*$/.exec(r.to_email)?.[1] ?? r.to_email).trim().toLowerCase(),
      fromEmail: r.from_email.toLowerCase(),
      messageId: r.message_id,
    }));
  }

  byProviderMessageId(providerMessageId: string): Promise<string | null> {
    return this.emails.findByProviderMessageId(providerMessageId);
  }
}
