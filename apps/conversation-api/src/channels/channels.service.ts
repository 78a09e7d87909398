import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../access/principal';
import { notFound } from '../common/errors';
import { hasPermission } from '../access/permissions';
import { SessionsService } from '../sessions/sessions.service';
import { TeamsService } from '../teams/teams.service';
import { UsersService } from '../users/users.service';
import { ChannelCredentials, type WhatsAppCredentials } from './channel-credentials';
import { ChannelsRepository, type Channel } from './channels.repository';
import type { ChannelTestDto, CreateEmailChannelDto, CreateWhatsAppChannelDto, MailServerDto, UpdateChannelDto } from './dto/channel.dto';
import { EmailClient, MailServerError, type MailboxCursor, type MailboxMail } from './email.client';
import type { EmailCredentials, EmailSettings, MailServer } from './email-settings';
import { ProviderError, WhatsAppClient, type OutboundPayload } from './whatsapp.client';

export type { Channel } from './channels.repository';
export type { MailboxMail } from './email.client';

/** The thread an email reply goes out in: its subject and the headers naming the mails it answers. */
export interface MailThread {
  /** Our Message-ID for the reply, `<…@domain of the channel's address>`. */
  messageId: string;
  subject: string;
  inReplyTo?: string;
  references?: string[];
}

const serverOf = (dto: MailServerDto): MailServer => ({ host: dto.host, port: dto.port, secure: dto.secure ?? [993, 465].includes(dto.port), user: dto.user });

/** How long a replica keeps a mailbox it polls before another may take it (it crashed meanwhile). */
const MAILBOX_LEASE_SECONDS = 300;

/** How long the webhook receiver uses a channel (row and opened credentials) it read, without reading it again. */
export const WEBHOOK_CHANNEL_FRESH_MS = 10_000;
/** Channels the webhook receiver remembers at most (the oldest read is forgotten first). */
export const WEBHOOK_CHANNELS_CACHED = 10_000;

/** A WhatsApp channel with its opened credentials, as the webhook receiver uses it. */
export interface WebhookChannel {
  channel: Channel;
  creds: WhatsAppCredentials;
  /** Read from this process's memory (up to WEBHOOK_CHANNEL_FRESH_MS old), not from the database just now. */
  cached: boolean;
}

@Injectable()
export class ChannelsService {
  /** channel id → the channel and its opened credentials, for the webhook receiver (see `forWebhook`). */
  private readonly webhookChannels = new Map<string, { found: Omit<WebhookChannel, 'cached'>; until: number }>();

  constructor(
    private readonly transactions: Transactions,
    private readonly channels: ChannelsRepository,
    private readonly credentials: ChannelCredentials,
    private readonly whatsapp: WhatsAppClient,
    private readonly email: EmailClient,
    private readonly users: UsersService,
    private readonly teams: TeamsService,
    private readonly sessions: SessionsService,
  ) {}

  list(accountId: string): Promise<Channel[]> {
    return this.channels.list(accountId);
  }

  /**
   * The channels (inboxes) whose conversations the caller sees, as Chatwoot scopes agents: null for
   * administrators (every channel of the account), else the channels it is a member of.
   */
  async visibleChannelIds(p: Pick<Principal, 'accountId' | 'userId' | 'permissions'>): Promise<string[] | null> {
    if (hasPermission(p.permissions, 'admin')) return null;
    return this.channels.memberChannelIds(p.accountId, p.userId);
  }

  /** What GET /channels shows: every channel to those who manage channels, else the caller's own (members read their inboxes). */
  listFor(p: Principal): Promise<Channel[]> {
    return hasPermission(p.permissions, 'channels:manage') ? this.channels.list(p.accountId) : this.channels.listOfMember(p.accountId, p.userId);
  }

  async getFor(p: Principal, id: string): Promise<Channel> {
    const channel = await this.get(p.accountId, id);
    if (!hasPermission(p.permissions, 'channels:manage') && !channel.memberIds.includes(p.userId)) throw notFound('channel');
    return channel;
  }

  async get(accountId: string, id: string): Promise<Channel> {
    const channel = await this.channels.find(accountId, id);
    if (!channel) throw notFound('channel');
    return channel;
  }

  /** The account's channel, or null. */
  find(accountId: string, id: string): Promise<Channel | null> {
    return this.channels.find(accountId, id);
  }

  /** Any account's channel (webhooks: the channel id is the only key); null for unknown ids and ids that are not UUIDs. */
  findById(id: string): Promise<Channel | null> {
    return this.channels.findById(id);
  }

  /**
   * A WhatsApp channel and its opened credentials for its webhook, or null (unknown id, not a UUID,
   * not WhatsApp). Read from the database at most every WEBHOOK_CHANNEL_FRESH_MS per channel and
   * process, so a delivery usually costs no lookup and no decryption; `fresh` reads it now (the
   * receiver does when a signature does not match the remembered secret, so a new app secret works
   * from its first delivery). Changes made through this process apply at once (`update` forgets
   * the channel); those of another replica within WEBHOOK_CHANNEL_FRESH_MS. Unknown ids are never
   * remembered, and credentials that cannot be opened throw (409) on every delivery.
   */
  async forWebhook(id: string, fresh = false): Promise<WebhookChannel | null> {
    const now = Date.now();
    const hit = fresh ? undefined : this.webhookChannels.get(id);
    if (hit && hit.until > now) return { ...hit.found, cached: true };
    this.webhookChannels.delete(id);
    const channel = await this.channels.findById(id);
    if (!channel || channel.type !== 'whatsapp') return null;
    const found = { channel, creds: this.credentials.open(channel.id, channel.credentials) };
    if (this.webhookChannels.size >= WEBHOOK_CHANNELS_CACHED) this.webhookChannels.delete(this.webhookChannels.keys().next().value as string);
    this.webhookChannels.set(id, { found, until: now + WEBHOOK_CHANNEL_FRESH_MS });
    return { ...found, cached: false };
  }

  /** The account owning a channel, cached (webhook rate limits look it up on every delivery). */
  accountOf(id: string): Promise<string | null> {
    return this.channels.accountOf(id);
  }

  /**
   * The member a new conversation of the channel goes to (round robin under the channel's cap), or
   * null; inside the caller's transaction, where concurrent assignments of the channel take turns.
   */
  nextAssignee(channel: Channel): Promise<string | null> {
    return this.channels.nextAssignee(channel.id, channel.assignmentCap);
  }

  /** `nextAssignee` for `n` new conversations of the channel in a row (null where nobody is under the cap), in the caller's transaction. */
  nextAssignees(channel: Channel, n: number): Promise<Array<string | null>> {
    return this.channels.nextAssignees(channel.id, channel.assignmentCap, n);
  }

  /** Webhook items for another phone number: counted on the channel (GET /channels/{id} `status.ignored_items`). */
  countIgnored(channelId: string, n: number, phoneNumberId: string): Promise<void> {
    return this.channels.countIgnored(channelId, n, phoneNumberId);
  }

  /**
   * Sends a text, or (`outbound`) media or a template, to `to` through the channel with its stored
   * credentials; the provider's message id. Email channels send text through their SMTP server, in
   * `thread` (subject, Message-ID, In-Reply-To, References); the Message-ID is the id.
   */
  async send(channel: Channel, to: string, content: string, outbound: OutboundPayload | null, thread?: MailThread): Promise<string> {
    if (channel.type === 'email') {
      if (outbound) throw new MailServerError(`Email channels send text replies; a ${outbound.kind} cannot be sent by email`, false);
      if (!channel.email || !thread) throw new MailServerError('The email channel has no settings or the reply no thread', false);
      const creds = this.credentials.open<EmailCredentials>(channel.id, channel.credentials);
      return this.email.send(channel.email.settings.smtp, creds.smtp_password, {
        from: { name: channel.name, address: channel.email.address },
        to,
        subject: thread.subject,
        text: content,
        messageId: thread.messageId,
        inReplyTo: thread.inReplyTo,
        references: thread.references,
      });
    }
    if (!channel.phoneNumberId) throw new ProviderError('The channel has no phone number id');
    const creds = this.credentials.open(channel.id, channel.credentials);
    return outbound ? this.whatsapp.sendPayload(channel.phoneNumberId, creds.access_token, to, outbound) : this.whatsapp.sendText(channel.phoneNumberId, creds.access_token, to, content);
  }

  /**
   * Connects an email inbox: the address, IMAP (read) and SMTP (send) servers; passwords sealed like
   * the WhatsApp credentials. Its mailbox is due for a first poll at once (mail from one day before
   * on, then by UID).
   */
  async createEmail(accountId: string, dto: CreateEmailChannelDto): Promise<Channel> {
    const id = randomUUID();
    const settings: EmailSettings = { imap: { ...serverOf(dto.imap), mailbox: dto.imap.mailbox ?? 'INBOX' }, smtp: serverOf(dto.smtp) };
    const created = await this.transactions.transaction(async () => {
      await this.checkRefs(accountId, dto.team_id, dto.member_ids);
      await this.channels.insert({
        id,
        accountId,
        type: 'email',
        name: dto.name,
        phoneNumber: null,
        phoneNumberId: null,
        businessAccountId: null,
        email: { address: dto.email.toLowerCase(), settings },
        credentials: this.credentials.seal(id, { imap_password: dto.imap.password, smtp_password: dto.smtp.password }),
        autoAssignment: dto.auto_assignment ?? false,
        assignmentCap: dto.assignment_cap ?? null,
        teamId: dto.team_id ?? null,
      });
      if (dto.member_ids) await this.channels.setMembers(id, dto.member_ids);
      return this.get(accountId, id);
    });
    return created;
  }

  /** Tries both servers of an email channel with its stored settings (log in, open the mailbox; connect and authenticate): nothing is read or sent. */
  async test(accountId: string, id: string): Promise<ChannelTestDto> {
    const channel = await this.get(accountId, id);
    if (channel.type !== 'email' || !channel.email) {
      throw new ApiError(422, 'CHANNEL_TEST_UNSUPPORTED', 'Only email channels have servers to test', { suggestion: 'WhatsApp channels are checked by the provider’s webhook handshake.' });
    }
    const creds = this.credentials.open<EmailCredentials>(channel.id, channel.credentials);
    const timed = async <T>(fn: () => Promise<T>) => {
      const start = Date.now();
      try {
        const value = await fn();
        return { ok: true, error: null, duration_ms: Date.now() - start, value };
      } catch (err) {
        return { ok: false, error: (err as Error).message, duration_ms: Date.now() - start, value: null };
      }
    };
    const [imap, smtp] = await Promise.all([
      timed(() => this.email.checkImap(channel.email!.settings.imap, creds.imap_password)),
      timed(() => this.email.checkSmtp(channel.email!.settings.smtp, creds.smtp_password)),
    ]);
    return {
      ok: imap.ok && smtp.ok,
      imap: { ok: imap.ok, error: imap.error, duration_ms: imap.duration_ms, ...(imap.value ? { messages: imap.value.messages, uid_validity: imap.value.uidValidity } : {}) },
      smtp: { ok: smtp.ok, error: smtp.error, duration_ms: smtp.duration_ms },
    };
  }

  /** The ids of up to `limit` email channels due for a poll, leased to this replica (no other polls them meanwhile). */
  claimDueMailboxes(limit: number): Promise<string[]> {
    return this.channels.claimDueMailboxes(limit, MAILBOX_LEASE_SECONDS);
  }

  /**
   * Reads an email channel's new mail past its cursor (see EmailClient.readNew), handing each to
   * `take`, after which the cursor moves to its UID (never backwards).
   */
  async readMailbox(channel: Channel, opts: { limit: number; maxBytes: number }, take: (mail: MailboxMail) => Promise<void>): Promise<{ taken: number; more: boolean }> {
    if (!channel.email) throw new MailServerError('Not an email channel', false);
    const creds = this.credentials.open<EmailCredentials>(channel.id, channel.credentials);
    const { uidValidity, lastUid, lastPolledAt } = channel.email.mailbox;
    const cursor: MailboxCursor | null = uidValidity !== null && lastUid !== null ? { uidValidity, lastUid } : null;
    // Without a usable cursor: mail of the last day before the channel was created, or before the last poll (the mailbox was renumbered).
    const since = new Date((lastPolledAt ?? channel.createdAt).getTime() - 24 * 3600 * 1000);
    const result = await this.email.readNew(channel.email.settings.imap, creds.imap_password, cursor, since, opts, async (mail, validity) => {
      await take(mail);
      await this.channels.advanceCursor(channel.id, validity, mail.uid);
    });
    // Everything below UIDNEXT was looked at: the cursor moves there (mail older than `since` stays unread for good).
    if (!result.more && result.uidNext !== null) await this.channels.advanceCursor(channel.id, result.uidValidity, result.uidNext - 1);
    return { taken: result.taken, more: result.more };
  }

  /** Counts a mail of the channel: stored, or skipped as an automatic reply or the channel's own. */
  countMail(channelId: string, kind: 'received' | 'auto_reply' | 'own'): Promise<void> {
    return this.channels.countMail(channelId, kind);
  }

  /** Ends a poll of the mailbox: its outcome, the next one in `nextInMs`, the lease released. */
  finishPoll(channelId: string, error: string | null, nextInMs: number): Promise<void> {
    return this.channels.finishPoll(channelId, error, nextInMs);
  }

  /** Makes the mailbox due for a poll now. */
  pollSoon(channelId: string): Promise<void> {
    return this.channels.pollSoon(channelId);
  }

  async createWhatsApp(accountId: string, dto: CreateWhatsAppChannelDto): Promise<Channel> {
    const id = randomUUID();
    return this.transactions.transaction(async () => {
      await this.checkRefs(accountId, dto.team_id, dto.member_ids);
      await this.channels.insert({
        id,
        accountId,
        type: 'whatsapp',
        name: dto.name,
        phoneNumber: dto.phone_number ?? null,
        phoneNumberId: dto.phone_number_id,
        businessAccountId: dto.business_account_id ?? null,
        credentials: this.credentials.seal(id, { access_token: dto.access_token, app_secret: dto.app_secret, verify_token: dto.verify_token }),
        autoAssignment: dto.auto_assignment ?? false,
        assignmentCap: dto.assignment_cap ?? null,
        teamId: dto.team_id ?? null,
      });
      if (dto.member_ids) await this.channels.setMembers(id, dto.member_ids);
      return this.get(accountId, id);
    });
  }

  async update(accountId: string, id: string, dto: UpdateChannelDto): Promise<Channel> {
    const updated = await this.transactions.transaction(async () => {
      const current = await this.get(accountId, id);
      await this.checkRefs(accountId, dto.team_id, dto.member_ids);
      let sealed: string | undefined;
      const kindMismatch =
        current.type === 'email' ? ['access_token', 'app_secret', 'verify_token'].filter((k) => dto[k as keyof UpdateChannelDto] !== undefined) : ['imap', 'smtp'].filter((k) => dto[k as keyof UpdateChannelDto] !== undefined);
      if (kindMismatch.length) {
        throw new ApiError(422, 'VALIDATION_ERROR', `Not settings of a ${current.type} channel`, { errors: kindMismatch.map((field) => ({ field, message: `not a setting of ${current.type} channels`, code: 'not_applicable' })) });
      }
      let emailSettings: EmailSettings | undefined;
      if (current.email && (dto.imap || dto.smtp)) {
        // A server block replaces the stored one, password included (the other keeps its password: both unreadable under a new key only if neither is given).
        const old = dto.imap && dto.smtp ? { imap_password: '', smtp_password: '' } : this.credentials.open<EmailCredentials>(id, current.credentials);
        emailSettings = {
          imap: dto.imap ? { ...serverOf(dto.imap), mailbox: dto.imap.mailbox ?? 'INBOX' } : current.email.settings.imap,
          smtp: dto.smtp ? serverOf(dto.smtp) : current.email.settings.smtp,
        };
        sealed = this.credentials.seal(id, { imap_password: dto.imap?.password ?? old.imap_password, smtp_password: dto.smtp?.password ?? old.smtp_password });
      }
      if (dto.access_token || dto.app_secret || dto.verify_token) {
        // All three given: the stored ones are not needed (they may be unreadable under a new key).
        const old = dto.access_token && dto.app_secret && dto.verify_token ? { access_token: '', app_secret: '', verify_token: '' } : this.credentials.open(id, current.credentials);
        sealed = this.credentials.seal(id, {
          access_token: dto.access_token ?? old.access_token,
          app_secret: dto.app_secret ?? old.app_secret,
          verify_token: dto.verify_token ?? old.verify_token,
        });
      }
      await this.channels.update(accountId, id, { name: dto.name, credentials: sealed, autoAssignment: dto.auto_assignment, assignmentCap: dto.assignment_cap, teamId: dto.team_id, emailSettings, resetCursor: Boolean(dto.imap && emailSettings && JSON.stringify(emailSettings.imap) !== JSON.stringify(current.email?.settings.imap)) });
      // New servers or mailbox: poll now (a different mailbox has another UIDVALIDITY, so its cursor starts over).
      if (emailSettings) await this.channels.pollSoon(id);
      if (dto.member_ids) {
        await this.channels.setMembers(id, dto.member_ids);
        // Sockets join their inboxes' rooms at connection: users who joined or left reconnect to see the change.
        const changed = [...current.memberIds.filter((m) => !dto.member_ids!.includes(m)), ...dto.member_ids.filter((m) => !current.memberIds.includes(m))];
        for (const userId of changed) await this.sessions.endSockets({ scope: 'user', id: userId, reason: 'channels_changed' });
      }
      return this.get(accountId, id);
    });
    // Once committed: a delivery read meanwhile may have remembered the channel as it was.
    this.webhookChannels.delete(id);
    return updated;
  }

  private async checkRefs(accountId: string, teamId: string | null | undefined, memberIds: string[] | undefined): Promise<void> {
    if (teamId) await this.teams.get(accountId, teamId);
    if (memberIds?.length) {
      const unknown = await this.users.unknownIds(accountId, memberIds);
      if (unknown.length) {
        throw new ApiError(422, 'VALIDATION_ERROR', 'Unknown users', {
          errors: unknown.map((m) => ({ field: 'member_ids', message: `no user ${m} in this account`, code: 'unknown_user' })),
        });
      }
    }
  }
}
