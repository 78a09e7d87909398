import { ApiError } from '@platform/errors';
import { CheckWorkflow } from './check-workflow';
import type { WorkflowGraph } from './graph';

const PROJECT = '00000000-0000-4000-8000-0000000000aa';
const T = '00000000-0000-4000-8000-000000000001';
const MAIL = '00000000-0000-4000-8000-000000000002';
const TEMPLATE = '10000000-0000-4000-8000-000000000001';
const SEGMENT = '20000000-0000-4000-8000-000000000001';
const notFound = (code: string) => new ApiError(404, code, 'not found');

function setup(opts: { template?: boolean; domainStatus?: string; segment?: { type: 'DYNAMIC' | 'STATIC'; trackMembership: boolean } | null; segmentError?: Error }) {
  const calls: string[] = [];
  const templates = {
    row: async (projectId: string, id: string, lock = false) => {
      calls.push(`template ${projectId} ${id}${lock ? ' locked' : ''}`);
      if (opts.template === false) throw notFound('TEMPLATE_NOT_FOUND');
      return { id, name: 'Welcome', domain_id: 'd1', from_email: 'hi@send.acme.test' };
    },
  };
  const domains = {
    get: async (projectId: string, id: string) => {
      calls.push(`domain ${projectId} ${id}`);
      return { id, domain: 'send.acme.test', status: opts.domainStatus ?? 'verified' };
    },
  };
  const segments = {
    get: async (projectId: string, id: string) => {
      calls.push(`segment ${projectId} ${id}`);
      if (opts.segmentError) throw opts.segmentError;
      if (!opts.segment) throw notFound('SEGMENT_NOT_FOUND');
      return { id, name: 'Pro', ...opts.segment };
    },
  };
  return { check: new CheckWorkflow(templates as never, domains as never, segments as never), calls };
}

const graph = (over: Partial<WorkflowGraph> = {}): WorkflowGraph => ({
  triggerType: 'EVENT',
  triggerConfig: { eventName: 'signed_up' },
  steps: [
    { id: T, type: 'TRIGGER', name: 'Trigger', config: {} },
    { id: MAIL, type: 'SEND_EMAIL', name: 'Welcome', config: { templateId: TEMPLATE } },
  ],
  transitions: [{ id: 't1', fromStepId: T, toStepId: MAIL, branch: null }],
  ...over,
});

describe('CheckWorkflow', () => {
  it('looks up each template and its domain: valid when verified', async () => {
    const { check, calls } = setup({});
    await expect(check.execute(PROJECT, graph())).resolves.toEqual([]);
    expect(calls).toEqual([`template ${PROJECT} ${TEMPLATE}`, `domain ${PROJECT} d1`]);
  });

  it.each([['pending'], ['degraded']])('names the step whose template sends from a %s domain', async (status) => {
    const { check } = setup({ domainStatus: status });
    await expect(check.execute(PROJECT, graph())).resolves.toEqual([expect.objectContaining({ field: `steps[${MAIL}].config.templateId`, code: 'domain_not_verified' })]);
  });

  it('a missing template is a finding, not a thrown 404', async () => {
    const { check } = setup({ template: false });
    await expect(check.execute(PROJECT, graph())).resolves.toEqual([expect.objectContaining({ field: `steps[${MAIL}].config.templateId`, code: 'not_found' })]);
  });

  it('asks the segments feature about a segment trigger: tracked DYNAMIC only', async () => {
    const segmentGraph = graph({ triggerType: 'SEGMENT_ENTRY', triggerConfig: { segmentId: SEGMENT } });
    await expect(setup({ segment: { type: 'DYNAMIC', trackMembership: true } }).check.execute(PROJECT, segmentGraph)).resolves.toEqual([]);
    await expect(setup({ segment: { type: 'STATIC', trackMembership: false } }).check.execute(PROJECT, segmentGraph)).resolves.toEqual([expect.objectContaining({ code: 'segment_not_tracked' })]);
    await expect(setup({ segment: null }).check.execute(PROJECT, segmentGraph)).resolves.toEqual([expect.objectContaining({ field: 'triggerConfig.segmentId', code: 'not_found' })]);
  });

  it('lets other failures through', async () => {
    const { check } = setup({ segmentError: new Error('database down') });
    await expect(check.execute(PROJECT, graph({ triggerType: 'SEGMENT_EXIT', triggerConfig: { segmentId: SEGMENT } }))).rejects.toThrow('database down');
  });

  it('lockTemplate locks the template row (a concurrent delete waits)', async () => {
    const { check, calls } = setup({});
    await check.lockTemplate(PROJECT, TEMPLATE);
    expect(calls).toEqual([`template ${PROJECT} ${TEMPLATE} locked`]);
  });
});
