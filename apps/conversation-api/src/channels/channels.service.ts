import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import type { OutboundPayload } from '../conversations/conversation';
import { notFound } from '../common/errors';
import { hasPermission } from '../roles/permissions';
import { SessionsService } from '../sessions/sessions.service';
import { TeamsService } from '../teams/teams.service';
import { UsersService } from '../users/users.service';
import { ChannelCredentials } from './channel-credentials';
import { ChannelsRepository, type Channel } from './channels.repository';
import type { CreateWhatsAppChannelDto, UpdateChannelDto } from './dto/channel.dto';
import { WhatsAppClient } from './whatsapp.client';

export type { Channel } from './channels.repository';

@Injectable()
export class ChannelsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly channels: ChannelsRepository,
    private readonly credentials: ChannelCredentials,
    private readonly whatsapp: WhatsAppClient,
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

  /** Webhook items for another phone number: counted on the channel (GET /channels/{id} `status.ignored_items`). */
  countIgnored(channelId: string, n: number, phoneNumberId: string): Promise<void> {
    return this.channels.countIgnored(channelId, n, phoneNumberId);
  }

  /** Sends a text, or (`outbound`) media or a template, to `to` through the channel with its stored credentials; the provider's message id. */
  send(channel: Channel, to: string, content: string, outbound: OutboundPayload | null): Promise<string> {
    const creds = this.credentials.open(channel.id, channel.credentials);
    return outbound ? this.whatsapp.sendPayload(channel.phoneNumberId, creds.access_token, to, outbound) : this.whatsapp.sendText(channel.phoneNumberId, creds.access_token, to, content);
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
    return this.transactions.transaction(async () => {
      const current = await this.get(accountId, id);
      await this.checkRefs(accountId, dto.team_id, dto.member_ids);
      let sealed: string | undefined;
      if (dto.access_token || dto.app_secret || dto.verify_token) {
        // All three given: the stored ones are not needed (they may be unreadable under a new key).
        const old = dto.access_token && dto.app_secret && dto.verify_token ? { access_token: '', app_secret: '', verify_token: '' } : this.credentials.open(id, current.credentials);
        sealed = this.credentials.seal(id, {
          access_token: dto.access_token ?? old.access_token,
          app_secret: dto.app_secret ?? old.app_secret,
          verify_token: dto.verify_token ?? old.verify_token,
        });
      }
      await this.channels.update(accountId, id, { name: dto.name, credentials: sealed, autoAssignment: dto.auto_assignment, assignmentCap: dto.assignment_cap, teamId: dto.team_id });
      if (dto.member_ids) {
        await this.channels.setMembers(id, dto.member_ids);
        // Sockets join their inboxes' rooms at connection: users who joined or left reconnect to see the change.
        const changed = [...current.memberIds.filter((m) => !dto.member_ids!.includes(m)), ...dto.member_ids.filter((m) => !current.memberIds.includes(m))];
        for (const userId of changed) await this.sessions.endSockets({ scope: 'user', id: userId, reason: 'channels_changed' });
      }
      return this.get(accountId, id);
    });
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
