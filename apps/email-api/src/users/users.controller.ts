import { Body, Controller, Delete, Get, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { MANAGERS } from '../access/roles';
import { CurrentUser, UserSession } from '../access/session.guard';
import type { User } from '../access/user';
import { ApiErrors, JSON_BODY_ERRORS } from '../common/api-errors.decorator';
import { CreatedProjectDto, MyProjectDto, ProjectDto, ProjectResetDto, ProjectSecurityDto, RotatedProjectDto } from '../projects/dto/project-response.dto';
import { CreateProjectDto, ResetProjectDto, UpdateProjectDto } from '../projects/dto/projects.dto';
import { ProjectsService } from '../projects/projects.service';
import { UserDto } from './dto/user.dto';
import { userView } from './user.view';

/**
 * A project of the user named by `:id`: the session user must be a member with one of `roles`; the
 * project's own secret key may act too (the spec: the secret key works on every endpoint). These are
 * the project's settings: they answer even while the project is disabled.
 */
const OWN = (roles?: Array<'OWNER' | 'ADMIN' | 'MEMBER'>) => ProjectAccess({ session: true, projectParam: 'id', roles, settings: true });

@ApiTags('Users and projects')
@Controller('users/@me')
export class UsersController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @UserSession()
  @ApiOperation({ summary: 'The logged-in user' })
  @ApiOkResponse({ type: UserDto })
  me(@CurrentUser() user: User) {
    return userView(user);
  }

  @Get('projects')
  @UserSession()
  @ApiOperation({ summary: 'Projects of the user with their role, public key and a hint of the secret key' })
  @ApiOkResponse({ type: MyProjectDto, isArray: true, description: 'Oldest first' })
  list(@CurrentUser() user: User) {
    return this.projects.list(user.id);
  }

  @Post('projects')
  @UserSession()
  @ApiOperation({
    summary: 'Create a project (the user becomes OWNER)',
    description: 'The answer holds the new `publicKey` (pk_…) and `secretKey` (sk_…). The secret key is stored hashed and never shown again (only `secretKeyHint`); rotate to get a new one.',
  })
  @ApiCreatedResponse({ type: CreatedProjectDto })
  @ApiErrors(JSON_BODY_ERRORS)
  create(@CurrentUser() user: User, @Body() body: CreateProjectDto) {
    return this.projects.create(user.id, body.name);
  }

  @Patch('projects/:id')
  @OWN(MANAGERS)
  @ApiOperation({
    summary: 'Rename, switch open and click tracking, set double opt-in (OWNER or ADMIN)',
    description:
      'Body `{name?, trackingEnabled?, doubleOptIn?: {enabled?, templateId?}}`; fields left out keep their value. Double opt-in needs a template of the project on a verified domain ' +
      '(its body may place `{{confirmUrl}}`; without it the link is appended); see the README\'s "Double opt-in".',
  })
  @ApiOkResponse({ type: ProjectDto })
  @ApiErrors(JSON_BODY_ERRORS, { 422: '`VALIDATION_ERROR` on `doubleOptIn.templateId`: `required` (turning it on without a template), `not_found`, `domain_not_verified`' })
  update(@CurrentProject() ctx: ProjectContext, @Body() body: UpdateProjectDto) {
    return this.projects.update(ctx, body);
  }

  @Delete('projects/:id')
  @OWN(['OWNER'])
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete the project with all its data (OWNER)' })
  @ApiNoContentResponse({ description: 'Deleted with its contacts, events, emails, jobs and members' })
  async delete(@CurrentProject() ctx: ProjectContext): Promise<void> {
    await this.projects.delete(ctx);
  }

  @Post('projects/:id/regenerate-keys')
  @HttpCode(200)
  @OWN(MANAGERS)
  @ApiOperation({ summary: 'Rotate both keys at once (OWNER or ADMIN): the answer holds the new keys; the old ones stop working immediately, no grace period' })
  @ApiOkResponse({ type: RotatedProjectDto })
  regenerate(@CurrentProject() ctx: ProjectContext) {
    return this.projects.regenerateKeys(ctx);
  }

  @Get('projects/:id/security')
  @OWN()
  @ApiOperation({ summary: 'Security overview: disabled state, keys (public key, secret hint, rotation time), owners, delivery failures of 30 days' })
  @ApiOkResponse({ type: ProjectSecurityDto })
  security(@CurrentProject() ctx: ProjectContext) {
    return this.projects.security(ctx);
  }

  @Post('projects/:id/reset')
  @HttpCode(200)
  @OWN(['OWNER'])
  @ApiOperation({
    summary: 'Irreversible wipe of the project data (OWNER)',
    description: 'Deletes every contact, event, email, job and idempotency key; keeps the project, its keys and members. Body `{"confirm": "<project name>"}`; another value gives 400 CONFIRMATION_MISMATCH.',
  })
  @ApiOkResponse({ type: ProjectResetDto })
  @ApiErrors(JSON_BODY_ERRORS, { 400: '`CONFIRMATION_MISMATCH`: `confirm` is not the project name' })
  reset(@CurrentProject() ctx: ProjectContext, @Body() body: ResetProjectDto) {
    return this.projects.reset(ctx, body.confirm);
  }
}
