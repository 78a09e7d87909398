import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@platform/errors';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { MANAGERS } from '../access/roles';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { MemberDto, ProjectSecurityDto, SetupStateDto } from './dto/project-response.dto';
import { AddMemberDto, UpdateMemberDto } from './dto/projects.dto';
import { ProjectsService } from './projects.service';

const uuid = new ParseUUIDPipe({
  exceptionFactory: () => new ApiError(404, 'MEMBER_NOT_FOUND', 'This user is not a member of the project', { suggestion: 'User ids are UUIDs; list members with GET /projects/:id/members.' }),
});

const MEMBER_NOT_FOUND = { 404: '`MEMBER_NOT_FOUND`: the user is no member of the project (or `userId` is not a UUID)' };
const LAST_OWNER = { 409: '`LAST_OWNER`: the project would be left without an owner' };
const MAY_NOT_GRANT = { 403: '`FORBIDDEN`: only owners grant, change or remove the OWNER role' };

@ApiTags('Users and projects')
@Controller('projects/:id')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get('setup-state')
  @ProjectAccess({ session: true, projectParam: 'id', settings: true })
  @ApiOperation({ summary: 'Onboarding progress: contacts, events, emails, members' })
  @ApiOkResponse({ type: SetupStateDto })
  setupState(@CurrentProject() ctx: ProjectContext) {
    return this.projects.setupState(ctx);
  }

  @Get('security')
  @ProjectAccess({ session: true, projectParam: 'id', settings: true })
  @ApiOperation({ summary: 'Security overview (as GET /users/@me/projects/:id/security)' })
  @ApiOkResponse({ type: ProjectSecurityDto })
  security(@CurrentProject() ctx: ProjectContext) {
    return this.projects.security(ctx);
  }

  @Get('members')
  @ProjectAccess({ session: true, projectParam: 'id', settings: true })
  @ApiOperation({ summary: 'Members with their roles (OWNER, ADMIN, MEMBER)' })
  @ApiOkResponse({ type: MemberDto, isArray: true, description: 'In joining order' })
  members(@CurrentProject() ctx: ProjectContext) {
    return this.projects.listMembers(ctx);
  }

  @Post('members')
  @ProjectAccess({ session: true, projectParam: 'id', roles: MANAGERS, settings: true })
  @ApiOperation({ summary: 'Add an existing account (OWNER or ADMIN; only owners grant OWNER)' })
  @ApiCreatedResponse({ type: MemberDto, description: 'The new member' })
  @ApiErrors(JSON_BODY_ERRORS, MAY_NOT_GRANT, {
    404: '`USER_NOT_FOUND`: no account has this email (the person signs up first)',
    409: '`ALREADY_MEMBER`: the user is already a member',
  })
  addMember(@CurrentProject() ctx: ProjectContext, @Body() body: AddMemberDto) {
    return this.projects.addMember(ctx, body.email, body.role);
  }

  @Patch('members/:userId')
  @ProjectAccess({ session: true, projectParam: 'id', roles: MANAGERS, settings: true })
  @ApiOperation({ summary: 'Change a role (409 LAST_OWNER when the last owner would go)' })
  @ApiOkResponse({ type: MemberDto, description: 'The member with the new role' })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, MAY_NOT_GRANT, MEMBER_NOT_FOUND, LAST_OWNER)
  updateMember(@CurrentProject() ctx: ProjectContext, @Param('userId', uuid) userId: string, @Body() body: UpdateMemberDto) {
    return this.projects.updateMember(ctx, userId, body.role);
  }

  @Delete('members/:userId')
  @HttpCode(204)
  @ProjectAccess({ session: true, projectParam: 'id', settings: true })
  @ApiOperation({ summary: 'Remove a member (OWNER or ADMIN; anyone may leave; never the last owner)' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(PARAM_ERRORS, MEMBER_NOT_FOUND, LAST_OWNER, { 403: '`FORBIDDEN`: a MEMBER removes only themself; only owners remove an owner' })
  async removeMember(@CurrentProject() ctx: ProjectContext, @Param('userId', uuid) userId: string): Promise<void> {
    await this.projects.removeMember(ctx, userId);
  }
}
