import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { ApiError } from '@platform/errors';
import { randomUUID } from 'node:crypto';
import { notFound } from '../common/errors';
import { TeamsRepository } from '../teams/teams.repository';
import { UsersRepository } from '../users/users.repository';
import { ChannelCredentials } from './channel-credentials';
import { ChannelsRepository, type Channel } from './channels.repository';
import type { CreateWhatsAppChannelDto, UpdateChannelDto } from './dto/channel.dto';

@Injectable()
export class ChannelsService {
  constructor(
    private readonly db: Database,
    private readonly channels: ChannelsRepository,
    private readonly credentials: ChannelCredentials,
    private readonly users: UsersRepository,
    private readonly teams: TeamsRepository,
  ) {}

  list(accountId: string): Promise<Channel[]> {
    return this.channels.list(accountId);
  }

  async get(accountId: string, id: string): Promise<Channel> {
    const channel = await this.channels.find(accountId, id);
    if (!channel) throw notFound('channel');
    return channel;
  }

  async createWhatsApp(accountId: string, dto: CreateWhatsAppChannelDto): Promise<Channel> {
    const id = randomUUID();
    return this.db.transaction(async () => {
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
    return this.db.transaction(async () => {
      const current = await this.get(accountId, id);
      await this.checkRefs(accountId, dto.team_id, dto.member_ids);
      let sealed: string | undefined;
      if (dto.access_token || dto.app_secret || dto.verify_token) {
        const old = this.credentials.open(id, current.credentials);
        sealed = this.credentials.seal(id, {
          access_token: dto.access_token ?? old.access_token,
          app_secret: dto.app_secret ?? old.app_secret,
          verify_token: dto.verify_token ?? old.verify_token,
        });
      }
      await this.channels.update(accountId, id, { name: dto.name, credentials: sealed, autoAssignment: dto.auto_assignment, assignmentCap: dto.assignment_cap, teamId: dto.team_id });
      if (dto.member_ids) await this.channels.setMembers(id, dto.member_ids);
      return this.get(accountId, id);
    });
  }

  private async checkRefs(accountId: string, teamId: string | null | undefined, memberIds: string[] | undefined): Promise<void> {
    if (teamId && !(await this.teams.find(accountId, teamId))) throw notFound('team');
    if (memberIds?.length) {
      const known = new Set(await this.users.existing(accountId, memberIds));
      const unknown = memberIds.filter((m) => !known.has(m));
      if (unknown.length) {
        throw new ApiError(422, 'VALIDATION_ERROR', 'Unknown users', {
          errors: unknown.map((m) => ({ field: 'member_ids', message: `no user ${m} in this account`, code: 'unknown_user' })),
        });
      }
    }
  }
}
