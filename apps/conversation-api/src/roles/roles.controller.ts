import { Body, Controller, Delete, Get, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { DeletedDto } from '../common/deleted.dto';
import { CreateRoleDto, PermissionDto, RoleDto, roleView, UpdateRoleDto } from './dto/role.dto';
import { PERMISSIONS } from '../access/permissions';
import { RolesService } from './roles.service';

@ApiTags('roles')
@Controller('api/v1/roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @RequirePermission()
  @ApiOperation({ summary: "The account's roles", description: 'Built-in `administrator` (permission `admin`: everything) and `agent`, then custom roles.' })
  @ApiOkEnvelope(RoleDto, { isArray: true })
  async list(@CurrentPrincipal() p: Principal) {
    return (await this.roles.list(p.accountId)).map(roleView);
  }

  @Get('permissions')
  @RequirePermission()
  @ApiOperation({ summary: 'The permission catalogue' })
  @ApiOkEnvelope(PermissionDto, { isArray: true })
  permissions() {
    return Object.entries(PERMISSIONS).map(([name, description]) => ({ name, description }));
  }

  @Get(':id')
  @RequirePermission()
  @ApiOkEnvelope(RoleDto)
  @ApiErrorAnswer(404, '`ROLE_NOT_FOUND`: no such role in the caller\'s account (ids of another account answer 404 too)')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return roleView(await this.roles.get(p.accountId, id));
  }

  @Post()
  @RequirePermission('roles:manage')
  @ApiOperation({ summary: 'Create a custom role', description: '409 `ROLE_NAME_TAKEN`; 403 `PERMISSION_NOT_GRANTABLE` when it holds a permission the caller lacks (only administrators grant `admin`).' })
  @ApiOkEnvelope(RoleDto, { status: 201 })
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateRoleDto) {
    return roleView(await this.roles.create(p, body));
  }

  @Patch(':id')
  @RequirePermission('roles:manage')
  @ApiOperation({ summary: 'Update a custom role', description: '403 `BUILT_IN_ROLE` for administrator and agent; 403 `PERMISSION_NOT_GRANTABLE` when the role holds, before or after, a permission the caller lacks; 409 `LAST_ADMINISTRATOR` when taking `admin` away would leave no active administrator.' })
  @ApiOkEnvelope(RoleDto)
  @ApiErrorAnswer(404, '`ROLE_NOT_FOUND`: no such role in the caller\'s account (ids of another account answer 404 too)')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateRoleDto) {
    return roleView(await this.roles.update(p, id, body));
  }

  @Delete(':id')
  @RequirePermission('roles:manage')
  @ApiOperation({ summary: 'Delete a custom role', description: '409 `ROLE_IN_USE` while users hold it; 403 `BUILT_IN_ROLE`; 403 `PERMISSION_NOT_GRANTABLE` when it holds a permission the caller lacks.' })
  @ApiOkEnvelope(DeletedDto)
  @ApiErrorAnswer(404, '`ROLE_NOT_FOUND`: no such role in the caller\'s account (ids of another account answer 404 too)')
  delete(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return this.roles.delete(p, id);
  }
}
