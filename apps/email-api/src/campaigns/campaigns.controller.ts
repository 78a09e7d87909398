import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { uuidPipe } from '../common/uuid.pipe';
import { CancelCampaign } from './cancel-campaign';
import { CampaignsService } from './campaigns.service';
import { CreateCampaign } from './create-campaign';
import { DuplicateCampaign } from './duplicate-campaign';
import { LaunchCampaign } from './launch-campaign';
import { ReplaceCampaign } from './replace-campaign';
import { SendCampaignTest } from './send-test';
import { CampaignBodyDto, CampaignDto, CampaignListQueryDto, CampaignPageDto, CampaignStatsDto, CampaignTestResultDto, SendCampaignDto, TestCampaignDto } from './dto/campaigns.dto';

const NOT_FOUND = { 404: '`CAMPAIGN_NOT_FOUND`: no campaign with this id in the project; `TEMPLATE_NOT_FOUND`: the templateId names no template of the project' };
const BODY = {
  400: '`INVALID_CONDITION`: the audienceCondition breaks its rules',
  422: '`VALIDATION_ERROR`: `from` not on a verified domain (code `domain_not_verified`), subject/body/from missing without a template, an audience field that does not fit audienceType, an unknown segment',
};
const CampaignId = () => Param('id', uuidPipe('CAMPAIGN_NOT_FOUND', 'Campaign'));

@ApiTags('Campaigns')
@ProjectAccess({ session: true })
@Controller('campaigns')
export class CampaignsController {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly createCampaign: CreateCampaign,
    private readonly replaceCampaign: ReplaceCampaign,
    private readonly duplicateCampaign: DuplicateCampaign,
    private readonly launchCampaign: LaunchCampaign,
    private readonly cancelCampaign: CancelCampaign,
    private readonly sendTest: SendCampaignTest,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Campaigns, page-based, newest first', description: '`{data, total, page, pageSize, totalPages}`; filter by `status`.' })
  @ApiOkResponse({ type: CampaignPageDto })
  @ApiErrors(PARAM_ERRORS)
  list(@CurrentProject() ctx: ProjectContext, @Query() query: CampaignListQueryDto) {
    return this.campaigns.list(ctx.project.id, query.page, query.pageSize, query.status);
  }

  @Post()
  @ApiOperation({ summary: 'Create a campaign (DRAFT)', description: '`{name, subject, body, from, audienceType, segmentId?, audienceCondition?}`; `from` on a verified domain of the project.' })
  @ApiCreatedResponse({ type: CampaignDto })
  @ApiErrors(JSON_BODY_ERRORS, NOT_FOUND, BODY)
  create(@CurrentProject() ctx: ProjectContext, @Body() body: CampaignBodyDto) {
    return this.createCampaign.execute(ctx.project.id, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One campaign' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  get(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string) {
    return this.campaigns.get(ctx.project.id, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace a DRAFT campaign', description: 'Every field as on create; 409 `CAMPAIGN_NOT_DRAFT` once it was sent or scheduled.' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, BODY, { 409: '`CAMPAIGN_NOT_DRAFT`: the campaign is not a DRAFT' })
  replace(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string, @Body() body: CampaignBodyDto) {
    return this.replaceCampaign.execute(ctx.project.id, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a campaign', description: '409 while it is SENDING (cancel it first).' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 409: '`CAMPAIGN_SENDING`: the campaign is sending' })
  async remove(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string) {
    await this.campaigns.remove(ctx.project.id, id);
  }

  @Post(':id/duplicate')
  @ApiOperation({ summary: 'Copy a campaign as a new DRAFT' })
  @ApiCreatedResponse({ type: CampaignDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 422: '`VALIDATION_ERROR` (`domain_not_verified`): the sender\'s domain is no longer verified' })
  duplicate(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string) {
    return this.duplicateCampaign.execute(ctx.project.id, id);
  }

  @Post(':id/send')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a DRAFT campaign now, or schedule it',
    description:
      'Without `scheduledFor` (or with a past one): SENDING; the fan-out writes one queued mail per subscribed recipient in batches of 500 through RabbitMQ and the send worker sends them at the project\'s EMAIL_SEND_RATE. ' +
      'A future `scheduledFor`: SCHEDULED, started by the scheduler at that time. SENDING → SENT once no mail is pending. 400 `NO_RECIPIENTS` when the audience has no subscribed contact.',
  })
  @ApiOkResponse({ type: CampaignDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, {
    400: '`NO_RECIPIENTS`: the audience has no subscribed contact',
    409: '`CAMPAIGN_NOT_DRAFT`: the campaign is not a DRAFT',
    422: '`VALIDATION_ERROR` (`domain_not_verified`): the sender\'s domain is no longer verified',
  })
  send(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string, @Body() body: SendCampaignDto) {
    return this.launchCampaign.execute(ctx.project.id, id, body.scheduledFor);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a SCHEDULED or SENDING campaign', description: 'CANCELLED; its mails not yet handed to SMTP become FAILED and are never sent.' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 409: '`CAMPAIGN_NOT_CANCELLABLE`: the campaign is neither SCHEDULED nor SENDING' })
  cancel(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string) {
    return this.cancelCampaign.execute(ctx.project.id, id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send the campaign to one address', description: 'Body `{email}`; the subject gets a `[Test]` prefix; not counted in the stats.' })
  @ApiOkResponse({ type: CampaignTestResultDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, { 422: '`VALIDATION_ERROR` (`domain_not_verified`): the sender\'s domain is no longer verified' })
  test(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string, @Body() body: TestCampaignDto) {
    return this.sendTest.execute(ctx.project.id, id, body.email);
  }

  @Get(':id/stats')
  @ApiOperation({ summary: 'Counts of the campaign\'s mails: sent, delivered, opened, clicked, bounced, complained, unsubscribed' })
  @ApiOkResponse({ type: CampaignStatsDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  stats(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string) {
    return this.campaigns.stats(ctx.project.id, id);
  }
}
