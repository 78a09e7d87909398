import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { MANAGERS } from '../access/roles';
import { AddMemberDto, UpdateMemberDto } from './dto/projects.dto';
import { ProjectsService } from './projects.service';

const uuid = new ParseUUIDPipe({
  exceptionFactory: () => new ApiError(404, 'MEMBER_NOT_FOUND', 'This user is not a member of the project', { suggestion: 'User ids are UUIDs; list members with GET /projects/:id/members.' }),
});

@ApiTags('Users and projects')
@Controller('projects/:id')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get('setup-state')
  @ProjectAccess({ session: true, projectParam: 'id' })
  @ApiOperation({ summary: 'Onboarding progress: contacts, events, emails, members' })
  setupState(@CurrentProject() ctx: ProjectContext) {
    return this.projects.setupState(ctx);
  }

  @Get('security')
  @ProjectAccess({ session: true, projectParam: 'id' })
  @ApiOperation({ summary: 'Security overview (as GET /users/@me/projects/:id/security)' })
  security(@CurrentProject() ctx: ProjectContext) {
    return this.projects.security(ctx);
  }

  @Get('members')
  @ProjectAccess({ session: true, projectParam: 'id' })
  @ApiOperation({ summary: 'Members with their roles (OWNER, ADMIN, MEMBER)' })
  members(@CurrentProject() ctx: ProjectContext) {
    return this.projects.listMembers(ctx);
  }

  @Post('members')
  @ProjectAccess({ session: true, projectParam: 'id', roles: MANAGERS })
  @ApiOperation({ summary: 'Add an existing account (OWNER or ADMIN; only owners grant OWNER)' })
  addMember(@CurrentProject() ctx: ProjectContext, @Body() body: AddMemberDto) {
    return this.projects.addMember(ctx, body.email, body.role);
  }

  @Patch('members/:userId')
  @ProjectAccess({ session: true, projectParam: 'id', roles: MANAGERS })
  @ApiOperation({ summary: 'Change a role (409 LAST_OWNER when the last owner would go)' })
  updateMember(@CurrentProject() ctx: ProjectContext, @Param('userId', uuid) userId: string, @Body() body: UpdateMemberDto) {
    return this.projects.updateMember(ctx, userId, body.role);
  }

  @Delete('members/:userId')
  @HttpCode(204)
  @ProjectAccess({ session: true, projectParam: 'id' })
  @ApiOperation({ summary: 'Remove a member (OWNER or ADMIN; anyone may leave; never the last owner)' })
  async removeMember(@CurrentProject() ctx: ProjectContext, @Param('userId', uuid) userId: string): Promise<void> {
    await this.projects.removeMember(ctx, userId);
  }
}
