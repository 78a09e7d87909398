import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { uuidPipe } from '../common/uuid.pipe';
import {
  AddStepDto,
  AddTransitionDto,
  CreateWorkflowDto,
  DeleteStepQueryDto,
  StepChangeQueryDto,
  StepDto,
  TransitionDto,
  UpdateStepDto,
  UpdateWorkflowDto,
  WorkflowDetailDto,
  WorkflowFieldsDto,
  WorkflowFieldsQueryDto,
  WorkflowListQueryDto,
  WorkflowPageDto,
} from './dto/workflows.dto';
import { STEP_CONFIG_MODELS } from './dto/step-configs.dto';
import type { TriggerConfig } from './step-config';
import { WorkflowFields } from './workflow-fields';
import { WorkflowsService } from './workflows.service';

const NOT_FOUND = { 404: '`WORKFLOW_NOT_FOUND`: no workflow with this id in the project' };
const STEP_NOT_FOUND = { 404: '`WORKFLOW_NOT_FOUND`; `WORKFLOW_STEP_NOT_FOUND`: no step with this id in the workflow' };
const ENABLED_RULES =
  '`VALIDATION_ERROR`: the config does not fit the step type (`error.errors` names each `config.<key>`); or the workflow is enabled and the change would break the enable rules (`error.errors` names each step as `steps[<stepId>]`, with a code such as `unreachable_step`, `cycle_without_wait`, `missing_branch`, `domain_not_verified`)';
const STEP_IN_USE = {
  409: '`WORKFLOW_STEP_IN_USE`: executions are waiting at the step (the message gives their count); retry with `?exitWaiting=true` to make them exit (EXITED, exitReason `step_changed` / `step_deleted`)',
};
const WorkflowId = () => Param('id', uuidPipe('WORKFLOW_NOT_FOUND', 'Workflow'));
const StepId = () => Param('stepId', uuidPipe('WORKFLOW_STEP_NOT_FOUND', 'Step'));
const TransitionId = () => Param('transitionId', uuidPipe('WORKFLOW_TRANSITION_NOT_FOUND', 'Transition'));

@ApiTags('Workflows')
@ApiExtraModels(...STEP_CONFIG_MODELS)
@ProjectAccess({ session: true })
@Controller('workflows')
export class WorkflowsController {
  constructor(
    private readonly workflows: WorkflowsService,
    private readonly workflowFields: WorkflowFields,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Workflows, page-based, newest first', description: '`{data, total, page, pageSize, totalPages}` without steps (GET /workflows/{id} has them); filter with `enabled`.' })
  @ApiOkResponse({ type: WorkflowPageDto })
  @ApiErrors(PARAM_ERRORS)
  list(@CurrentProject() ctx: ProjectContext, @Query() query: WorkflowListQueryDto) {
    return this.workflows.list(ctx.project.id, query.page, query.pageSize, query.enabled);
  }

  @Get('fields')
  @ApiOperation({
    summary: 'Fields a CONDITION step can read',
    description:
      '`contact.email`, `contact.subscribed`, the custom fields of the project\'s contacts as `contact.data.<key>` (type inferred from the stored values, with coverage), the data keys of the newest 10,000 tracked events as `event.<key>` (the triggering event\'s data, with the event names carrying them), and with `workflowId` the mail facts of its SEND_EMAIL steps (`email.<stepId>.opened|clicked`). Each with the operators that suit its type. Keys that are not letters, digits, `_` or `-` are left out (a condition cannot name them).',
  })
  @ApiOkResponse({ type: WorkflowFieldsDto })
  @ApiErrors(PARAM_ERRORS, { 404: '`WORKFLOW_NOT_FOUND`: `workflowId` names no workflow of the project' })
  fields(@CurrentProject() ctx: ProjectContext, @Query() query: WorkflowFieldsQueryDto) {
    return this.workflowFields.execute(ctx.project.id, query.workflowId?.toLowerCase());
  }

  @Post()
  @ApiOperation({
    summary: 'Create a workflow (EVENT trigger, disabled)',
    description: '`{name, description?, allowReentry?, triggerConfig?}`: `triggerType` is EVENT and `enabled` false; the workflow comes with its entry step of type TRIGGER (in `steps`). Add steps and transitions, then enable it with PATCH.',
  })
  @ApiCreatedResponse({ type: WorkflowDetailDto })
  @ApiErrors(JSON_BODY_ERRORS, { 422: '`VALIDATION_ERROR`: `triggerConfig` is not `{eventName}` of an EVENT trigger' })
  create(@CurrentProject() ctx: ProjectContext, @Body() body: CreateWorkflowDto) {
    return this.workflows.create(ctx.project.id, { ...body, triggerConfig: body.triggerConfig as TriggerConfig | undefined });
  }

  @Get(':id')
  @ApiOperation({ summary: 'One workflow with its steps and transitions' })
  @ApiOkResponse({ type: WorkflowDetailDto })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND)
  get(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string) {
    return this.workflows.get(ctx.project.id, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change metadata, trigger, enabled, allowReentry',
    description:
      'Enabling (`enabled: true`) checks the whole definition, and so does every later change of the trigger, steps or transitions while it is enabled: one entry (the TRIGGER step, leading somewhere, nothing leading into it); every step reachable from it; no loop without a DELAY or WAIT_FOR_EVENT on it; CONDITION steps with both `yes` and `no`; EXIT steps leading nowhere; every step config valid (a mail condition names a SEND_EMAIL step before it); the trigger config complete (`eventName` for EVENT; for SEGMENT_ENTRY / SEGMENT_EXIT an existing DYNAMIC segment with `trackMembership`); every SEND_EMAIL template existing and on a verified domain. ' +
      'Each problem is one entry of `error.errors` naming the step (`field` `steps[<stepId>]…`) with a code and message; nothing is saved. ' +
      'Disabling stops new starts; executions already running go on (cancel them with POST /workflows/{id}/executions/cancel-all). To restructure an enabled workflow in several edits, disable it, edit, enable it again.',
  })
  @ApiOkResponse({ type: WorkflowDetailDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, {
    422: '`VALIDATION_ERROR`: `triggerConfig` does not fit the trigger type, names no segment of the project, or enabling finds problems (`error.errors`: `steps[<stepId>]` with codes `unreachable_step`, `cycle_without_wait`, `missing_branch`, `invalid_branch`, `entry_leads_nowhere`, `not_found`, `domain_not_verified`, `mail_step_not_before`…; `triggerConfig.eventName` / `triggerConfig.segmentId` with `required`, `not_found`, `segment_not_tracked`)',
  })
  update(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @Body() body: UpdateWorkflowDto) {
    return this.workflows.update(ctx.project.id, id, { ...body, triggerConfig: body.triggerConfig as TriggerConfig | undefined });
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a workflow', description: 'With its steps, transitions and finished executions. 409 while executions run or wait: cancel them first (POST /workflows/{id}/executions/cancel-all).' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(PARAM_ERRORS, NOT_FOUND, { 409: '`WORKFLOW_HAS_ACTIVE_EXECUTIONS`: executions are RUNNING or WAITING (the message gives their count)' })
  async remove(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string) {
    await this.workflows.remove(ctx.project.id, id);
  }

  @Post(':id/steps')
  @ApiOperation({
    summary: 'Add a step',
    description: '`{type, name?, config}`; the step is connected with POST /workflows/{id}/transitions. A SEND_EMAIL template must be one of the project (404 `TEMPLATE_NOT_FOUND`). On an enabled workflow a new step is unreachable until a transition leads to it, so the change is refused: disable the workflow to add steps.',
  })
  @ApiCreatedResponse({ type: StepDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, { 404: '`WORKFLOW_NOT_FOUND`; `TEMPLATE_NOT_FOUND`: `config.templateId` names no template of the project', 422: ENABLED_RULES })
  addStep(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @Body() body: AddStepDto) {
    return this.workflows.addStep(ctx.project.id, id, body);
  }

  @Patch(':id/steps/:stepId')
  @ApiOperation({
    summary: 'Update a step\'s name or config',
    description:
      'The config is replaced whole and checked for the step\'s type (the type never changes: delete and add to change it). A config change of a step that executions are waiting at (a DELAY or WAIT_FOR_EVENT holding them) is refused with 409 `WORKFLOW_STEP_IN_USE` naming how many, unless `?exitWaiting=true`: then those executions end EXITED (exitReason `step_changed`) in the same transaction. A name change alone never touches executions.',
  })
  @ApiOkResponse({ type: StepDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, STEP_NOT_FOUND, { 404: '`TEMPLATE_NOT_FOUND`: `config.templateId` names no template of the project', 422: ENABLED_RULES }, STEP_IN_USE)
  updateStep(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @StepId() stepId: string, @Body() body: UpdateStepDto, @Query() query: StepChangeQueryDto) {
    return this.workflows.updateStep(ctx.project.id, id, stepId, body, query.exitWaiting ?? false);
  }

  @Delete(':id/steps/:stepId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a step',
    description:
      'Its transitions go with it. `?splice=true` reconnects the neighbours: every transition into the step is redirected to the step\'s one next step (keeping its branch), so A → B → C becomes A → C; a step without a next step just goes; a step with several outgoing branches (CONDITION yes/no, WAIT_FOR_EVENT with a timeout branch) cannot be spliced (422 `splice_ambiguous`: delete the branches you do not keep first). ' +
      'Executions waiting at the step: 409 `WORKFLOW_STEP_IN_USE` naming how many, or with `?exitWaiting=true` they end EXITED (exitReason `step_deleted`). The TRIGGER step cannot be deleted (409 `WORKFLOW_TRIGGER_STEP`).',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(PARAM_ERRORS, STEP_NOT_FOUND, {
    409: '`WORKFLOW_TRIGGER_STEP`: the TRIGGER step is the workflow\'s entry',
    422: '`VALIDATION_ERROR`: `splice_ambiguous` (the step has several outgoing branches), or the workflow is enabled and the deletion would break the enable rules (`error.errors` names each step)',
  }, STEP_IN_USE)
  async removeStep(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @StepId() stepId: string, @Query() query: DeleteStepQueryDto) {
    await this.workflows.removeStep(ctx.project.id, id, stepId, { splice: query.splice ?? false, exitWaiting: query.exitWaiting ?? false });
  }

  @Post(':id/transitions')
  @ApiOperation({
    summary: 'Connect two steps',
    description:
      '`{fromStepId, toStepId, branch?}`, both steps of this workflow. `branch`: `yes` or `no` out of a CONDITION step (required), optionally `timeout` out of a WAIT_FOR_EVENT step (without a timeout branch a timeout ends the execution COMPLETED with exitReason `timeout`), absent out of every other step. Nothing leads into the TRIGGER step, nothing out of an EXIT step; a step has one transition per branch (one plain transition: steps run one after the other, branching is what CONDITION does).',
  })
  @ApiCreatedResponse({ type: TransitionDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, NOT_FOUND, {
    409: '`WORKFLOW_TRANSITION_EXISTS`: the step already has a transition with this branch',
    422: '`VALIDATION_ERROR`: a step not of this workflow (`fromStepId` / `toStepId`, `not_found`), into the TRIGGER (`entry_has_incoming`), a branch the step type does not take (`branch`, `invalid_branch`, the message names the step), or the workflow is enabled and the change would break the enable rules',
  })
  addTransition(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @Body() body: AddTransitionDto) {
    return this.workflows.addTransition(ctx.project.id, id, { fromStepId: body.fromStepId.toLowerCase(), toStepId: body.toStepId.toLowerCase(), branch: body.branch });
  }

  @Delete(':id/transitions/:transitionId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a transition', description: 'On an enabled workflow the result must still pass the enable rules (422 otherwise).' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(PARAM_ERRORS, { 404: '`WORKFLOW_NOT_FOUND`; `WORKFLOW_TRANSITION_NOT_FOUND`: no transition with this id in the workflow', 422: '`VALIDATION_ERROR`: the workflow is enabled and the deletion would break the enable rules (`error.errors` names each step)' })
  async removeTransition(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @TransitionId() transitionId: string) {
    await this.workflows.removeTransition(ctx.project.id, id, transitionId);
  }
}
