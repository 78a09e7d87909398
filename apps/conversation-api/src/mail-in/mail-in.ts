import { Injectable, Logger } from '@nestjs/common';
import { ChannelsService, type Channel, type MailboxMail } from '../channels/channels.service';
import { ConversationApiConfig } from '../config';
import type { Attachment } from '../conversations/conversation';
import { InboundService } from '../conversations/inbound.service';
import { MAX_MEDIA_BYTES, MediaStore } from '../media/media-store';
import { attachmentType, classifyMail, emailAttributes, mailText, senderOf, sourceIdOf, threadIdsOf } from './incoming-mail';

/** Mails read per IMAP round, and rounds per poll (a large backlog is taken over several polls). */
const BATCH = 50;
const ROUNDS = 10;

export interface PollOutcome {
  taken: number;
  error: string | null;
}

/**
 * Mail in: polls the email channels' mailboxes over IMAP (one replica per mailbox at a time: the
 * channel row is claimed with a lease) and turns each new mail into a message — in its thread's
 * conversation (Message-ID named by In-Reply-To or References) or a new one — with its attachments
 * stored; automatic replies and the channel's own mail open nothing. The UID cursor moves past a
 * mail only once it was taken, and a mail is stored once per Message-ID, so mail is neither missed
 * nor taken twice, even when two pollers overlap.
 */
@Injectable()
export class MailIn {
  private readonly logger = new Logger(MailIn.name);

  constructor(
    private readonly channels: ChannelsService,
    private readonly inbound: InboundService,
    private readonly media: MediaStore,
    private readonly config: ConversationApiConfig,
  ) {}

  /** Polls up to `limit` mailboxes that are due (the worker's tick); how many were polled. */
  async pollDue(limit = 5): Promise<number> {
    const ids = await this.channels.claimDueMailboxes(limit);
    for (const id of ids) await this.poll(id);
    return ids.length;
  }

  /** Reads the channel's new mail now and schedules its next poll. */
  async poll(channelId: string): Promise<PollOutcome> {
    let taken = 0;
    let error: string | null = null;
    let more = false;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const channel = await this.channels.findById(channelId);
        if (!channel?.email) return { taken, error: null };
        const result = await this.channels.readMailbox(channel, { limit: BATCH, maxBytes: this.config.CONVERSATION_EMAIL_MAX_BYTES }, (mail) => this.take(channel, mail));
        taken += result.taken;
        more = result.more;
        if (!more) break;
      }
    } catch (err) {
      error = (err as Error).message;
      this.logger.warn(`mailbox of channel ${channelId}: ${error}`);
    }
    // A backlog left after the rounds of this poll: due again at once (any replica may go on with it).
    await this.channels.finishPoll(channelId, error, more && !error ? 0 : this.config.CONVERSATION_IMAP_POLL_SECONDS * 1000);
    return { taken, error };
  }

  private async take(channel: Channel, mail: MailboxMail): Promise<void> {
    const address = channel.email!.address;
    // Loaded with the first mail: the parser's modules are not needed to start.
    const { simpleParser } = await import('mailparser');
    const parsed = await simpleParser(mail.raw, { skipTextToHtml: true, skipImageLinks: true });
    const kind = classifyMail(parsed, address);
    if (kind !== 'conversation') {
      await this.channels.countMail(channel.id, kind);
      return;
    }
    const sender = senderOf(parsed)!;
    const sourceId = sourceIdOf(parsed, mail.raw);
    const attachments: Attachment[] = [];
    for (const a of mail.truncated ? [] : parsed.attachments) {
      if (a.size > MAX_MEDIA_BYTES) continue;
      const key = await this.media.put(a.content);
      attachments.push({ type: attachmentType(a.contentType), mime_type: a.contentType, filename: a.filename ?? undefined, file_size: a.size, sha256: key, storage_key: key });
    }
    const text = mail.truncated ? `[The body of this mail (${mail.size} bytes) was not downloaded: it is larger than ${this.config.CONVERSATION_EMAIL_MAX_BYTES} bytes]` : mailText(parsed);
    const result = await this.inbound.receive(channel, {
      sourceId,
      from: sender.address,
      profileName: sender.name,
      email: sender.address,
      content: text,
      contentType: 'incoming_email',
      attachments,
      contentAttributes: { email: emailAttributes(parsed, sourceId) },
      thread: threadIdsOf(parsed),
    });
    if (!result.duplicate) await this.channels.countMail(channel.id, 'received');
  }
}
