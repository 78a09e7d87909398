import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { uuidPipe } from '../common/uuid.pipe';
import { DomainsService } from './domains.service';
import { CreateDomainDto, DomainDto } from './dto/domains.dto';

const NOT_FOUND = { 404: '`DOMAIN_NOT_FOUND`: no domain with this id in the project' };

@ApiTags('Domains')
@Controller('domains')
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @Get('project/:projectId')
  @ProjectAccess({ session: true, projectParam: 'projectId' })
  @ApiOperation({ summary: 'Domains of a project (newest first)' })
  @ApiOkResponse({ type: [DomainDto] })
  @ApiErrors(PARAM_ERRORS)
  list(@CurrentProject() ctx: ProjectContext, @Param('projectId') _projectId: string) {
    return this.domains.list(ctx.project.id);
  }

  @Post()
  @ProjectAccess({ session: true })
  @ApiOperation({
    summary: 'Add a sending domain',
    description:
      'Answers the domain as `pending` with the DNS records to publish: a DKIM TXT record with the public half of an RSA-2048 key pair generated for the domain ' +
      '(the private key is kept encrypted; every mail from the verified domain is DKIM-signed with it), an SPF TXT record, the return path `bounce.<domain>` (MX and SPF TXT) and DMARC advice. ' +
      'The domain becomes `verified` when every required record resolves to its value: checked in the background every 5 minutes, or now with GET /domains/{id}/verify.',
  })
  @ApiCreatedResponse({ type: DomainDto })
  @ApiErrors(JSON_BODY_ERRORS, { 409: '`DOMAIN_EXISTS`: the project already has this domain' })
  add(@CurrentProject() ctx: ProjectContext, @Body() body: CreateDomainDto) {
    return this.domains.add(ctx.project.id, body.domain);
  }

  @Get(':id/verify')
  @ProjectAccess({ session: true })
  @ApiOperation({
    summary: 'Check the DNS records now',
    description: 'Looks up every required record (each lookup bounded by DNS_TIMEOUT_MS, so the answer comes within seconds even when no DNS server answers) and answers the domain with `checks`; pending → verified when all are found.',
  })
  @ApiOkResponse({ type: DomainDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  verify(@CurrentProject() ctx: ProjectContext, @Param('id', uuidPipe('DOMAIN_NOT_FOUND', 'Domain')) id: string) {
    return this.domains.verify(ctx.project.id, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ProjectAccess({ session: true })
  @ApiOperation({ summary: 'Remove a domain', description: '409 while a template or a DRAFT, SCHEDULED or SENDING campaign sends from it.' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 409: '`DOMAIN_IN_USE`: a template or an unfinished campaign uses the domain (the message counts the workflow steps sending those templates)' })
  async remove(@CurrentProject() ctx: ProjectContext, @Param('id', uuidPipe('DOMAIN_NOT_FOUND', 'Domain')) id: string) {
    await this.domains.remove(ctx.project.id, id);
  }
}
