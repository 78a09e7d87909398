import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { DeletedDto } from '../common/deleted.dto';
import { CreateTeamDto, TeamDto, TeamMembersDto, teamView, UpdateTeamDto } from './dto/team.dto';
import { TeamsService } from './teams.service';

@ApiTags('teams')
@Controller('api/v1/teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Get()
  @RequirePermission()
  @ApiOkEnvelope(TeamDto, { isArray: true })
  async list(@CurrentPrincipal() p: Principal) {
    return (await this.teams.list(p.accountId)).map(teamView);
  }

  @Get(':id')
  @RequirePermission()
  @ApiOkEnvelope(TeamDto)
  @ApiErrorAnswer(404, '`TEAM_NOT_FOUND`: no such team in the caller\'s account (ids of another account answer 404 too)')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return teamView(await this.teams.get(p.accountId, id));
  }

  @Post()
  @RequirePermission('teams:manage')
  @ApiOperation({ summary: 'Create a team', description: '409 `TEAM_NAME_TAKEN`.' })
  @ApiOkEnvelope(TeamDto, { status: 201 })
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateTeamDto) {
    return teamView(await this.teams.create(p.accountId, body));
  }

  @Patch(':id')
  @RequirePermission('teams:manage')
  @ApiOkEnvelope(TeamDto)
  @ApiErrorAnswer(404, '`TEAM_NOT_FOUND`: no such team in the caller\'s account (ids of another account answer 404 too)')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateTeamDto) {
    return teamView(await this.teams.update(p.accountId, id, body));
  }

  @Put(':id/members')
  @RequirePermission('teams:manage')
  @ApiOperation({ summary: 'Replace the members of a team' })
  @ApiOkEnvelope(TeamDto)
  @ApiErrorAnswer(404, '`TEAM_NOT_FOUND`: no such team in the caller\'s account (ids of another account answer 404 too)')
  async members(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: TeamMembersDto) {
    return teamView(await this.teams.setMembers(p.accountId, id, body.member_ids));
  }

  @Delete(':id')
  @RequirePermission('teams:manage')
  @ApiOkEnvelope(DeletedDto)
  @ApiErrorAnswer(404, '`TEAM_NOT_FOUND`: no such team in the caller\'s account (ids of another account answer 404 too)')
  delete(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.teams.delete(p.accountId, id);
  }
}
