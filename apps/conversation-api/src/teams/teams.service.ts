import { Injectable } from '@nestjs/common';
import { Database } from '@platform/database';
import { ApiError } from '@platform/errors';
import { conflict, notFound } from '../common/errors';
import { UsersRepository } from '../users/users.repository';
import type { CreateTeamDto, UpdateTeamDto } from './dto/team.dto';
import { TeamsRepository, type Team } from './teams.repository';

@Injectable()
export class TeamsService {
  constructor(
    private readonly db: Database,
    private readonly teams: TeamsRepository,
    private readonly users: UsersRepository,
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
    return this.db.transaction(async () => {
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
    return this.db.transaction(async () => {
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
    const known = new Set(await this.users.existing(accountId, memberIds));
    const unknown = memberIds.filter((m) => !known.has(m));
    if (unknown.length) {
      throw new ApiError(422, 'VALIDATION_ERROR', 'Unknown users', {
        errors: unknown.map((m) => ({ field: 'member_ids', message: `no user ${m} in this account`, code: 'unknown_user' })),
        suggestion: 'List the account’s users with GET /api/v1/users.',
      });
    }
    await this.teams.setMembers(teamId, memberIds);
  }
}
