import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BodyLimit } from '@platform/platform';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, jsonBodyErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { CAMPAIGN_BODY_LIMIT } from '../common/body-limits';
import { uuidPipe } from '../common/uuid.pipe';
import { CancelCampaign } from './cancel-campaign';
import { CampaignsService } from './campaigns.service';
import { CreateCampaign } from './create-campaign';
import { DuplicateCampaign } from './duplicate-campaign';
import { LaunchCampaign } from './launch-campaign';
import { PickAbWinner } from './pick-ab-winner';
import { ReplaceCampaign } from './replace-campaign';
import { SendCampaignTest } from './send-test';
import { CampaignBodyDto, CampaignDto, CampaignListQueryDto, CampaignPageDto, CampaignStatsDto, CampaignTestResultDto, PickAbWinnerDto, SendCampaignDto, TestCampaignDto } from './dto/campaigns.dto';

const NOT_FOUND = { 404: '`CAMPAIGN_NOT_FOUND`: no campaign with this id in the project; `TEMPLATE_NOT_FOUND`: the templateId names no template of the project' };
const BODY = {
  400: '`INVALID_CONDITION`: the audienceCondition breaks its rules',
  422: '`VALIDATION_ERROR`: `from` not on a verified domain (code `domain_not_verified`), subject/body/from missing without a template, an audience field that does not fit audienceType, an unknown segment, an A/B variant that gives neither subject nor body',
};
const AB_TEST_DOC =
  ' With `abTest` `{variants: [{subject?, body?}] (2–4, named A–D), testShare (1–50 %), metric: opens|clicks, waitMinutes (1–43200)}`: on sending, testShare % of the recipients (drawn at random, the same draw after a restart) get the variants, ' +
  'split evenly (A, B, … in turn); once every test mail was handed to SMTP the wait starts; when it runs out the variant with the highest rate of mails opened (or clicked) by a person per delivered mail wins ' +
  '(privacy-proxy opens and scanner clicks do not count; **a tie goes to the earlier variant**, A before B) and the rest of the audience gets it. Each contact gets one mail of the campaign.';
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
    private readonly pickAbWinner: PickAbWinner,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Campaigns, page-based, newest first', description: '`{data, total, page, pageSize, totalPages}`; filter by `status`.' })
  @ApiOkResponse({ type: CampaignPageDto })
  @ApiErrors(PARAM_ERRORS)
  list(@CurrentProject() ctx: ProjectContext, @Query() query: CampaignListQueryDto) {
    return this.campaigns.list(ctx.project.id, query.page, query.pageSize, query.status);
  }

  @Post()
  @BodyLimit(CAMPAIGN_BODY_LIMIT)
  @ApiOperation({ summary: 'Create a campaign (DRAFT)', description: '`{name, subject, body, from, audienceType, segmentId?, audienceCondition?, abTest?}`; `from` on a verified domain of the project.' + AB_TEST_DOC })
  @ApiCreatedResponse({ type: CampaignDto })
  @ApiErrors(jsonBodyErrors(CAMPAIGN_BODY_LIMIT), NOT_FOUND, BODY)
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
  @BodyLimit(CAMPAIGN_BODY_LIMIT)
  @ApiOperation({ summary: 'Replace a DRAFT campaign', description: 'Every field as on create (`abTest` too: left out, the campaign has none); 409 `CAMPAIGN_NOT_DRAFT` once it was sent or scheduled, so an A/B test changes only while DRAFT.' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiErrors(jsonBodyErrors(CAMPAIGN_BODY_LIMIT), PARAM_ERRORS, NOT_FOUND, BODY, { 409: '`CAMPAIGN_NOT_DRAFT`: the campaign is not a DRAFT' })
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
      'A future `scheduledFor`: SCHEDULED, started by the scheduler at that time. SENDING → SENT once no mail is pending. 400 `NO_RECIPIENTS` when the audience has no subscribed contact. ' +
      'With an A/B test the campaign stays SENDING through `abTest.phase` testing → waiting → winner and is SENT once the winner reached the rest.',
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
  @ApiOperation({ summary: 'Send the campaign to one address', description: 'Body `{email, variant?}`; the subject gets a `[Test]` prefix; not counted in the stats. `variant` (A–D) previews a variant of the A/B test.' })
  @ApiOkResponse({ type: CampaignTestResultDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, { 422: '`VALIDATION_ERROR` (`domain_not_verified`): the sender\'s domain is no longer verified; `variant` names no variant of the campaign\'s A/B test' })
  test(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string, @Body() body: TestCampaignDto) {
    return this.sendTest.execute(ctx.project.id, id, body.email, body.variant);
  }

  @Post(':id/ab/winner')
  @HttpCode(200)
  @ApiOperation({
    summary: 'End an A/B test now: the winner goes to the rest of the audience',
    description:
      'Body `{variant?}`. Without `variant`: the best by the test\'s metric now (a tie goes to the earlier variant); with it: that variant, whatever the figures (recorded as `forced`). ' +
      'Allowed while the campaign is SENDING and no winner was picked (in the `testing` phase too: test mails not sent yet count as not opened). ' +
      'The campaign answers in its `winner` phase; GET /campaigns/{id}/stats shows how the winner was picked and whether the difference was significant.',
  })
  @ApiOkResponse({ type: CampaignDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, {
    409: '`CAMPAIGN_NOT_AB_TEST`: the campaign has no A/B test; `AB_TEST_NOT_RUNNING`: the campaign is not SENDING (send it first, or it is SENT or CANCELLED); `AB_WINNER_PICKED`: the winner was picked already',
    422: '`VALIDATION_ERROR`: `variant` names no variant of this test',
  })
  pickWinner(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string, @Body() body: PickAbWinnerDto) {
    return this.pickAbWinner.early(ctx.project.id, id, body.variant);
  }

  @Get(':id/stats')
  @ApiOperation({
    summary: 'Counts of the campaign\'s mails: sent, delivered, opened, clicked, bounced, complained, unsubscribed',
    description:
      'With an A/B test, `abTest`: per variant (test mails) and for the rest: recipients, sent, delivered, opened and clicked by a person, openRate and clickRate (per delivered mail); the winner with how it was picked (`by` metric|forced, `trigger` wait|early, `tie`, the figures at the time); ' +
      'and `significance`: the pooled two-proportion z-test between the best two variants by the metric (z, two-sided p-value, `significant` at p < 0.05). Not significant means the difference may be noise.',
  })
  @ApiOkResponse({ type: CampaignStatsDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  stats(@CurrentProject() ctx: ProjectContext, @CampaignId() id: string) {
    return this.campaigns.stats(ctx.project.id, id);
  }
}
