import { Injectable } from '@nestjs/common';
import { Transactions } from '@platform/database';
import { ApiError } from '@platform/errors';
import { conflict, notFound } from '../common/errors';
import { UsersService } from '../users/users.service';
import type { CreateTeamDto, UpdateTeamDto } from './dto/team.dto';
import { TeamsRepository, type Team } from './teams.repository';

export type { Team } from './teams.repository';

@Injectable()
export class TeamsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly teams: TeamsRepository,
    private readonly users: UsersService,
  ) {}

  list(accountId: string): Promise<Team[]> {
    return this.teams.list(accountId);
  }

  async get(accountId: string, id: string): Promise<Team> {
    const team = await this.teams.find(accountId, id);
    if (!team) throw notFound('team');
    return team;
  }

  async create(accountId: string, dto: CreateTeamDto): Promise<Team> {
    return this.transactions.transaction(async () => {
      const id = await this.teams.insert(accountId, dto.name, dto.description ?? null);
      if (!id) throw conflict('TEAM_NAME_TAKEN', `A team named ${dto.name} exists`, 'Choose another name.');
      if (dto.member_ids?.length) await this.setMembersChecked(accountId, id, dto.member_ids);
      return this.get(accountId, id);
    });
  }

  async update(accountId: string, id: string, dto: UpdateTeamDto): Promise<Team> {
    const done = await this.teams.update(accountId, id, dto);
    if (done === 'taken') throw conflict('TEAM_NAME_TAKEN', `A team named ${dto.name} exists`, 'Choose another name.');
    if (!done) throw notFound('team');
    return this.get(accountId, id);
  }

  async setMembers(accountId: string, id: string, memberIds: string[]): Promise<Team> {
    return this.transactions.transaction(async () => {
      await this.get(accountId, id);
      await this.setMembersChecked(accountId, id, memberIds);
      return this.get(accountId, id);
    });
  }

  async delete(accountId: string, id: string): Promise<{ deleted: true }> {
    if (!(await this.teams.delete(accountId, id))) throw notFound('team');
    return { deleted: true };
  }

  private async setMembersChecked(accountId: string, teamId: string, memberIds: string[]): Promise<void> {
    const unknown = await this.users.unknownIds(accountId, memberIds);
    if (unknown.length) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Unknown users', {
        errors: unknown.map((m) => ({ field: 'member_ids', message: `no user ${m} in this account`, code: 'unknown_user' })),
        suggestion: 'List the account’s users with GET /api/v1/users.',
      });
    }
    await this.teams.setMembers(teamId, memberIds);
  }
}
