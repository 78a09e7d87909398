import { Body, Controller, Get, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOkEnvelope, ApiPageEnvelope } from '@platform/envelopes';
import { RequirePermission, ApiErrorAnswer } from '../access/access.decorators';
import { CurrentPrincipal, type Principal } from '../access/principal';
import { pageOf, PageQueryDto } from '../common/pagination';
import { CreateUserDto, UpdateUserDto, UserDto, userView } from './dto/user.dto';
import { UsersService } from './users.service';

@ApiTags('users')
@Controller('api/v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequirePermission()
  @ApiOperation({ summary: "The account's users (agents and administrators)" })
  @ApiPageEnvelope(UserDto)
  async list(@CurrentPrincipal() p: Principal, @Query() q: PageQueryDto) {
    const { page, limit, offset } = pageOf(q);
    const { items, total } = await this.users.list(p.accountId, limit, offset);
    return { items: items.map(userView), total, page, limit };
  }

  @Get(':id')
  @RequirePermission()
  @ApiOkEnvelope(UserDto)
  @ApiErrorAnswer(404, '`USER_NOT_FOUND`: no such user in the caller\'s account (ids of another account answer 404 too)')
  async get(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string) {
    return userView(await this.users.get(p.accountId, id));
  }

  @Post()
  @RequirePermission('users:manage')
  @ApiOperation({ summary: 'Create a user in the caller’s account', description: '409 `EMAIL_TAKEN` (emails are unique over all accounts); 404 `ROLE_NOT_FOUND`; 403 `PERMISSION_NOT_GRANTABLE` when the role holds a permission the caller lacks (only administrators give `admin`).' })
  @ApiOkEnvelope(UserDto, { status: 201 })
  @ApiErrorAnswer(404, '`ROLE_NOT_FOUND`: `role_id` names no role of the caller\'s account')
  async create(@CurrentPrincipal() p: Principal, @Body() body: CreateUserDto) {
    return userView(await this.users.create(p, body));
  }

  @Patch(':id')
  @RequirePermission('users:manage')
  @ApiOperation({ summary: 'Rename, change the role of, or (de)activate a user', description: 'Deactivation revokes every session of the user. 409 `LAST_ADMINISTRATOR` (checked under a lock: of two racing demotions of the last two administrators one is refused); 403 `PERMISSION_NOT_GRANTABLE` when the user or the new role holds a permission the caller lacks.' })
  @ApiOkEnvelope(UserDto)
  @ApiErrorAnswer(404, '`USER_NOT_FOUND`: no such user in the caller\'s account (ids of another account answer 404 too)')
  async update(@CurrentPrincipal() p: Principal, @Param('id', ParseUUIDPipe) id: string, @Body() body: UpdateUserDto) {
    return userView(await this.users.update(p, id, body));
  }
}
