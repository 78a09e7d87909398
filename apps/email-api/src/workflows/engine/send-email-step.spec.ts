import { ApiError } from '@platform/errors';
import type { DomainsService } from '../../domains/domains.service';
import type { MailQueue } from '../../emails/mail-queue.service';
import type { UnsubscribeLinks } from '../../emails/unsubscribe-links';
import type { SuppressionsService } from '../../suppressions/suppressions.service';
import type { TemplatesService } from '../../templates/templates.service';
import type { EngineContact, StepDef } from '../executions.repository';
import { SendEmailStep } from './send-email-step';
import { StepError } from './step-error';

const TEMPLATE = { id: 't1', name: 'Welcome', subject: 'Hi {{data.name ?? "there"}}', body: '<p>{{event.plan}} {{context.src}}</p>', from: 'hello@acme.test', createdAt: new Date(), updatedAt: new Date() };
const execution = { id: 'e1', projectId: 'p1', trigger: { type: 'EVENT' as const, eventName: 'signed_up', data: { plan: 'pro' } }, context: { src: 'ads' } };
const step = (config: Record<string, unknown>): StepDef => ({ id: 's1', workflowId: 'w1', type: 'SEND_EMAIL', name: 'welcome', config });
const ada: EngineContact = { id: 'cnt_1', email: 'ada@example.com', subscribed: true, data: { name: 'Ada' } };

function setup(over: { template?: () => Promise<unknown>; sender?: () => Promise<void>; suppressed?: Map<string, unknown>; enqueue?: () => Promise<unknown> } = {}) {
  const calls = { templates: 0, enqueued: [] as Array<{ email: Record<string, unknown>; reason?: string }> };
  const templates = { get: async () => (calls.templates++, over.template ? over.template() : TEMPLATE) } as unknown as TemplatesService;
  const domains = { assertSendableSender: over.sender ?? (async () => undefined) } as unknown as DomainsService;
  const suppressions = { blocking: async () => over.suppressed ?? new Map() } as unknown as SuppressionsService;
  const queue = {
    enqueue: async (email: Record<string, unknown>, reason?: string) => {
      if (over.enqueue) await over.enqueue();
      calls.enqueued.push({ email, reason });
      return { id: `eml_${calls.enqueued.length}`, status: reason ? 'SUPPRESSED' : 'QUEUED' };
    },
    flush: () => undefined,
    smtpConfigured: true,
  } as unknown as MailQueue;
  const links = { url: (id: string) => `https://mail.test/unsubscribe/${id}.sig` } as unknown as UnsubscribeLinks;
  return { step: new SendEmailStep(templates, domains, suppressions, queue, links), calls };
}

describe('SendEmailStep', () => {
  it('to the contact: marketing mail with one-click unsubscribe, rendered with contact, event and context, carrying the execution', async () => {
    const { step: send, calls } = setup();
    const sent = await send.send(execution, step({ templateId: 't1' }), ada);
    expect(sent).toEqual({ emailId: expect.stringMatching(/^eml_[0-9a-z]{20}$/), status: 'QUEUED', to: 'ada@example.com', kind: 'MARKETING' });
    const { email, reason } = calls.enqueued[0];
    expect(email.id).toBe(sent.emailId);
    expect(reason).toBeUndefined();
    expect(email).toMatchObject({
      projectId: 'p1',
      contactId: 'cnt_1',
      kind: 'MARKETING',
      source: 'WORKFLOW',
      from: 'hello@acme.test',
      subject: 'Hi Ada',
      html: '<p>pro ads</p>',
      templateId: 't1',
      workflowExecutionId: 'e1',
      headers: { 'List-Unsubscribe': '<https://mail.test/unsubscribe/cnt_1.sig>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', Precedence: 'bulk', 'X-Workflow-Execution-Id': 'e1' },
    });
  });

  it('an unsubscribed contact or a suppressed address: recorded SUPPRESSED, not a failure', async () => {
    const { step: send, calls } = setup();
    expect((await send.send(execution, step({ templateId: 't1' }), { ...ada, subscribed: false })).status).toBe('SUPPRESSED');
    expect(calls.enqueued[0].reason).toMatch(/unsubscribed/);
    const blocked = setup({ suppressed: new Map([['ada@example.com', { reason: 'hard_bounce', source: 'smtp' }]]) });
    await blocked.step.send(execution, step({ templateId: 't1' }), ada);
    expect(blocked.calls.enqueued[0].reason).toMatch(/hard_bounce/);
  });

  it('to a fixed address: transactional, without the contact\'s unsubscribe headers', async () => {
    const { step: send, calls } = setup();
    const sent = await send.send(execution, step({ templateId: 't1', to: 'Sales@Acme.test' }), { ...ada, subscribed: false });
    expect(sent).toMatchObject({ to: 'sales@acme.test', kind: 'TRANSACTIONAL', status: 'QUEUED' });
    expect(calls.enqueued[0].email).toMatchObject({ contactId: null, kind: 'TRANSACTIONAL', headers: { 'X-Workflow-Execution-Id': 'e1' } });
    expect(calls.enqueued[0].email.headers).not.toHaveProperty('List-Unsubscribe');
  });

  it('reads a template once per tick (the memo), and says which failures are worth a retry', async () => {
    const { step: send, calls } = setup();
    const memo = new Map();
    await Promise.all([send.send(execution, step({ templateId: 't1' }), ada, memo), send.send(execution, step({ templateId: 't1' }), ada, memo)]);
    expect(calls.templates).toBe(1);
    const gone = await setup({ template: async () => Promise.reject(new ApiError(404, 'TEMPLATE_NOT_FOUND', 'Template not found')) }).step.send(execution, step({ templateId: 't1' }), ada).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(StepError);
    expect(gone).toMatchObject({ permanent: true });
    const unverified = await setup({ sender: async () => Promise.reject(new ApiError(403, 'SENDER_DOMAIN_DEGRADED', 'degraded')) }).step.send(execution, step({ templateId: 't1' }), ada).catch((e: unknown) => e);
    expect(unverified).toMatchObject({ permanent: false, message: 'sender hello@acme.test: degraded' });
    const capped = await setup({ enqueue: async () => Promise.reject(new ApiError(429, 'BILLING_LIMIT_REACHED', 'workflows cap reached')) }).step.send(execution, step({ templateId: 't1' }), ada).catch((e: unknown) => e);
    expect(capped).toMatchObject({ permanent: false, message: 'the mail was refused: workflows cap reached' });
  });
});
