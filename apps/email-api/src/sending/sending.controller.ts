import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { MANAGERS } from '../access/roles';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { SendingSettingsDto, UpdateSendingDto } from './dto/sending.dto';
import { SendingService } from './sending.service';

const THROTTLE =
  'Every mail of the project (transactional, workflow, campaign) goes out through one token bucket of this rate (holding one second of it, at least one mail), shared by every replica; ' +
  'due mail is taken transactional first, then workflow, then campaign, so a queued campaign never holds up `/v1/send`. Campaign mails are also paced at this rate when they are queued. (The spec names the throttle, not its values.)';

@ApiTags('Projects')
@Controller('projects/:id/sending')
export class SendingController {
  constructor(private readonly sending: SendingService) {}

  @Get()
  @ProjectAccess({ session: true, projectParam: 'id', settings: true })
  @ApiOperation({ summary: 'The project\'s send rate (not shown in the spec)', description: THROTTLE })
  @ApiOkResponse({ type: SendingSettingsDto })
  @ApiErrors(PARAM_ERRORS)
  get(@CurrentProject() ctx: ProjectContext, @Param('id') _id: string) {
    return this.sending.get(ctx.project.id);
  }

  @Put()
  @ProjectAccess({ session: true, projectParam: 'id', roles: MANAGERS, settings: true })
  @ApiOperation({ summary: 'Set the project\'s send rate (not shown in the spec)', description: THROTTLE })
  @ApiOkResponse({ type: SendingSettingsDto })
  @ApiErrors(JSON_BODY_ERRORS, { 422: '`VALIDATION_ERROR`: `sendRate` below 0.01 or above EMAIL_SEND_RATE_MAX (code `too_big`)' })
  set(@CurrentProject() ctx: ProjectContext, @Param('id') _id: string, @Body() body: UpdateSendingDto) {
    return this.sending.set(ctx.project.id, body.sendRate);
  }
}
