import { Body, Controller, Get, Post, Query, Req, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { Roles, RolesGuard } from '@platform/auth';
import { DetailErrorDto } from '../common/detail-error.dto';
import { CreateLogisticsUserDto, ListUsersQueryDto, LogisticsUserDto, LogisticsUserPageDto } from './dto/logistics-user.dto';
import { LogisticsJwtGuard } from './logistics-jwt.guard';
import { LogisticsUsersService } from './logistics-users.service';

@ApiTags('logistics users (part G)')
@ApiBearerAuth()
@ApiUnauthorizedResponse({ type: DetailErrorDto, description: '`{detail: "Could not validate credentials"}`' })
@ApiForbiddenResponse({ type: DetailErrorDto, description: 'The caller is not an admin' })
@Controller('api/v1/logistics/users')
@UseGuards(LogisticsJwtGuard, RolesGuard)
@Roles('admin')
export class LogisticsUsersController {
  constructor(private readonly users: LogisticsUsersService) {}

  @Get()
  @ApiOperation({
    summary: 'List users (admin)',
    description: 'Page-number pagination: `page` (from 1, default 1) and `limit` (1-100, default 20); the body has `items`, `total`, `page`, `limit`. Oldest users first.',
  })
  @ApiOkResponse({ type: LogisticsUserPageDto })
  @ApiUnprocessableEntityResponse({ type: DetailErrorDto })
  async list(@Query() query: ListUsersQueryDto): Promise<LogisticsUserPageDto> {
    const { items, total } = await this.users.list(query.page, query.limit);
    return { items: items.map((u) => LogisticsUserDto.from(u)), total, page: query.page, limit: query.limit };
  }

  @Post()
  @ApiOperation({ summary: 'Create a user with a role (admin)', description: 'Publishes the event `auth.user_created` (realm `logistics`).' })
  @ApiCreatedResponse({ type: LogisticsUserDto })
  @ApiConflictResponse({ type: DetailErrorDto, description: '`{detail: "A user with this email already exists"}`' })
  @ApiUnprocessableEntityResponse({ type: DetailErrorDto })
  async create(@Body() body: CreateLogisticsUserDto, @Req() req: { id?: unknown }): Promise<LogisticsUserDto> {
    const user = await this.users.create(
      { email: body.email, password: body.password, role: body.role, fullName: body.full_name ?? null },
      typeof req.id === 'string' ? req.id : undefined,
    );
    return LogisticsUserDto.from(user);
  }
}
