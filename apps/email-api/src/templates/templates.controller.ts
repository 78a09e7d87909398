import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BodyLimit } from '@platform/platform';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, jsonBodyErrors, PARAM_ERRORS } from '../common/api-errors.decorator';
import { TEMPLATE_BODY_LIMIT } from '../common/body-limits';
import { uuidPipe } from '../common/uuid.pipe';
import { CreateTemplateDto, TemplateDto, TemplateUsageDto, UpdateTemplateDto } from './dto/templates.dto';
import { TemplatesService } from './templates.service';

const NOT_FOUND = { 404: '`TEMPLATE_NOT_FOUND`: no template with this id in the project' };
const FROM = { 422: '`VALIDATION_ERROR` with code `domain_not_verified` on `from`: the sender is not on a verified domain of the project' };
const TemplateId = () => Param('id', uuidPipe('TEMPLATE_NOT_FOUND', 'Template'));

@ApiTags('Templates')
@ProjectAccess({ session: true })
@Controller('templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiOperation({ summary: 'Every template of the project, newest first' })
  @ApiOkResponse({ type: [TemplateDto] })
  list(@CurrentProject() ctx: ProjectContext) {
    return this.templates.list(ctx.project.id);
  }

  @Post()
  @BodyLimit(TEMPLATE_BODY_LIMIT)
  @ApiOperation({ summary: 'Create a template `{name, subject, body, from}`', description: '`from` must be on a verified domain of the project.' })
  @ApiCreatedResponse({ type: TemplateDto })
  @ApiErrors(jsonBodyErrors(TEMPLATE_BODY_LIMIT), FROM)
  create(@CurrentProject() ctx: ProjectContext, @Body() body: CreateTemplateDto) {
    return this.templates.create(ctx.project.id, body);
  }

  @Get(':id')
  @ApiOkResponse({ type: TemplateDto })
  @ApiOperation({ summary: 'One template' })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  get(@CurrentProject() ctx: ProjectContext, @TemplateId() id: string) {
    return this.templates.get(ctx.project.id, id);
  }

  @Patch(':id')
  @BodyLimit(TEMPLATE_BODY_LIMIT)
  @ApiOperation({ summary: 'Change fields of a template' })
  @ApiOkResponse({ type: TemplateDto })
  @ApiErrors(jsonBodyErrors(TEMPLATE_BODY_LIMIT), PARAM_ERRORS, NOT_FOUND, FROM)
  update(@CurrentProject() ctx: ProjectContext, @TemplateId() id: string, @Body() body: UpdateTemplateDto) {
    return this.templates.update(ctx.project.id, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a template', description: '409 while a DRAFT, SCHEDULED or SENDING campaign is made from it, or a workflow SEND_EMAIL step (of an enabled workflow or not) sends it.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 409: '`TEMPLATE_IN_USE`: an unfinished campaign uses the template, or a workflow step sends it (GET /templates/{id}/usage lists them)' })
  async remove(@CurrentProject() ctx: ProjectContext, @TemplateId() id: string) {
    await this.templates.remove(ctx.project.id, id);
  }

  @Post(':id/duplicate')
  @ApiOperation({ summary: 'Copy a template (new id, name + " (copy)")' })
  @ApiCreatedResponse({ type: TemplateDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, FROM)
  duplicate(@CurrentProject() ctx: ProjectContext, @TemplateId() id: string) {
    return this.templates.duplicate(ctx.project.id, id);
  }

  @Get(':id/usage')
  @ApiOperation({ summary: 'Where the template is used: the campaigns made from it and the workflow steps sending it', description: '`{campaigns: [{id, name, status}], workflows: [{id, name, enabled, stepId, stepName}]}`: one `workflows` entry per SEND_EMAIL step (a workflow sending the template from two steps appears twice).' })
  @ApiOkResponse({ type: TemplateUsageDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  usage(@CurrentProject() ctx: ProjectContext, @TemplateId() id: string) {
    return this.templates.usage(ctx.project.id, id);
  }
}
