import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentProject, ProjectAccess, type ProjectContext } from '../access/project-access.guard';
import { ApiErrors, JSON_BODY_ERRORS, PARAM_ERRORS } from '../common/api-errors.decorator';
import { uuidPipe } from '../common/uuid.pipe';
import { CancelAllDto, ExecutionDetailDto, ExecutionDto, ExecutionPageDto, ExecutionsQueryDto, StartExecutionDto } from './dto/execution.dto';
import { ExecutionsService } from './executions.service';

const WORKFLOW_NOT_FOUND = { 404: '`WORKFLOW_NOT_FOUND`: no workflow with this id in the project' };
const EXECUTION_NOT_FOUND = { 404: '`WORKFLOW_NOT_FOUND`, `EXECUTION_NOT_FOUND`: no such workflow in the project, or no such execution of it' };
const WorkflowId = () => Param('id', uuidPipe('WORKFLOW_NOT_FOUND', 'Workflow'));
const ExecutionId = () => Param('executionId', uuidPipe('EXECUTION_NOT_FOUND', 'Execution'));

const ENGINE =
  'Executions run on the engine of every replica: a step run is written together with its effect (a mail queued, a contact updated) in one transaction, so each step runs once; a DELAY or WAIT_FOR_EVENT stores its wake-up time in the database (no timer in memory). ' +
  'A failing step is tried 5 times in all (30 s, 1, 2 and 4 min apart), then the execution is FAILED with the step and the error in `error`; an address a WEBHOOK may never reach (private, loopback, metadata) fails at once.';

@ApiTags('Workflows')
@ProjectAccess({ session: true })
@Controller('workflows/:id/executions')
export class ExecutionsController {
  constructor(private readonly executions: ExecutionsService) {}

  @Post()
  @ApiOperation({
    summary: 'Start the workflow manually for a contact',
    description:
      'Body `{contactId}` or `{email}` (an existing contact of the project) and an optional `context` (per-execution variables: `{{context.x}}` in templates and webhook bodies, CONDITION `event.<key>`). ' +
      'The workflow must be enabled (409 `WORKFLOW_DISABLED`), whatever its trigger type; `allowReentry` false refuses a contact that ever went through it, true one that is in it now (409 `REENTRY_NOT_ALLOWED`). ' +
      'Answers the execution (RUNNING); its steps run on the engine right after. ' +
      ENGINE,
  })
  @ApiCreatedResponse({ type: ExecutionDto })
  @ApiErrors(JSON_BODY_ERRORS, PARAM_ERRORS, {
    404: '`WORKFLOW_NOT_FOUND`: no workflow with this id in the project; `CONTACT_NOT_FOUND`: no such contact',
    409: '`WORKFLOW_DISABLED`: enable the workflow first; `REENTRY_NOT_ALLOWED`: the contact is in it, or went through it and allowReentry is false',
  })
  start(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @Body() body: StartExecutionDto) {
    return this.executions.start(ctx.project.id, id, body);
  }

  @Get()
  @ApiOperation({ summary: 'Executions of the workflow, newest first', description: 'Filter `status`; cursor pagination (`limit`, `cursor`; `{data, cursor, hasMore, total}`, `total` on the first page only).' })
  @ApiOkResponse({ type: ExecutionPageDto })
  @ApiErrors(PARAM_ERRORS, WORKFLOW_NOT_FOUND, { 400: '`INVALID_CURSOR`: the cursor was not returned by this list' })
  list(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @Query() query: ExecutionsQueryDto) {
    return this.executions.list(ctx.project.id, id, query);
  }

  @Post('cancel-all')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel every running or waiting execution of the workflow', description: 'They become CANCELLED (exitReason `cancelled`) and their current step run SKIPPED; a step being run right now by a replica is not written any more. Answers how many.' })
  @ApiOkResponse({ type: CancelAllDto })
  @ApiErrors(PARAM_ERRORS, WORKFLOW_NOT_FOUND)
  cancelAll(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string) {
    return this.executions.cancelAll(ctx.project.id, id);
  }

  @Get(':executionId')
  @ApiOperation({ summary: 'One execution with its step history', description: '`steps`: every step run in order with `status`, `input`, `output`, `error` and `attempts`.' })
  @ApiOkResponse({ type: ExecutionDetailDto })
  @ApiErrors(PARAM_ERRORS, EXECUTION_NOT_FOUND)
  get(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @ExecutionId() executionId: string) {
    return this.executions.get(ctx.project.id, id, executionId);
  }

  @Delete(':executionId')
  @ApiOperation({ summary: 'Cancel a running or waiting execution', description: 'It becomes CANCELLED (exitReason `cancelled`); its current step run is SKIPPED. Answers the execution. An ended execution: 409 `EXECUTION_NOT_ACTIVE`. The record stays (executions are history).' })
  @ApiOkResponse({ type: ExecutionDto })
  @ApiErrors(PARAM_ERRORS, EXECUTION_NOT_FOUND, { 409: '`EXECUTION_NOT_ACTIVE`: it has ended already' })
  cancel(@CurrentProject() ctx: ProjectContext, @WorkflowId() id: string, @ExecutionId() executionId: string) {
    return this.executions.cancel(ctx.project.id, id, executionId);
  }
}
