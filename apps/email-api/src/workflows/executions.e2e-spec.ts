import { hashApiKey } from '@platform/auth';
import { Database } from '@platform/database';
import { verifyHmacSignature } from '@platform/http-safety';
import { AutomationEmailCaptured, EmailEventTracked, EventBus } from '@platform/messaging';
import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink, type SmtpMessage, type TestRabbit } from '@platform/testing';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { bearer, decodeQuotedPrintable, eventually, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { testRabbit, verifiedDomain } from '../../test/marketing';
import { BillingUsage } from '../billing/billing-usage.service';
import { newId } from '../common/ids';

const BASE = 'https://mail.example.test/email';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

interface StepSpec {
  key: string;
  type: string;
  config: Record<string, unknown>;
}
interface WorkflowSpec {
  name: string;
  trigger: { type: string; config?: Record<string, unknown> };
  allowReentry?: boolean;
  steps: StepSpec[];
  /** [from, to, branch?]; `trigger` is the TRIGGER step. */
  edges: Array<[string, string, string?]>;
}
interface Hook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('workflow executions (e2e: engine, API, RabbitMQ)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let rabbit: TestRabbit | undefined;
  let db: Database;
  let project: TestProject;
  let template: string;
  let hookServer: Server;
  let hookUrl: string;
  const hooks: Hook[] = [];
  /** Answers of the hook server by path: a list consumed in order, then 200. */
  const answers = new Map<string, number[]>();
  const sk = () => bearer(project.secretKey);
  const q = <T>(sql: string, params: unknown[] = []) => db.rows<T>(sql, params);

  /** Creates, wires and enables a workflow; answers its id and its steps' ids by key. */
  async function workflow(spec: WorkflowSpec): Promise<{ id: string; steps: Record<string, string> }> {
    const created = await t.http.post('/workflows').set(sk()).send({ name: spec.name, allowReentry: spec.allowReentry ?? false }).expect(201);
    const id = created.body.id as string;
    const full = await t.http.get(`/workflows/${id}`).set(sk()).expect(200);
    const steps: Record<string, string> = { trigger: full.body.steps.find((s: { type: string }) => s.type === 'TRIGGER').id };
    // `<key>` in a config names a step created before it (a condition on the mail of an earlier step)
    for (const s of spec.steps) {
      const config = JSON.parse(JSON.stringify(s.config).replace(/<([a-z]+)>/g, (_m, key: string) => steps[key]));
      steps[s.key] = (await t.http.post(`/workflows/${id}/steps`).set(sk()).send({ type: s.type, name: s.key, config }).expect(201)).body.id;
    }
    for (const [from, to, branch] of spec.edges) {
      await t.http.post(`/workflows/${id}/transitions`).set(sk()).send({ fromStepId: steps[from], toStepId: steps[to], ...(branch ? { branch } : {}) }).expect(201);
    }
    await t.http.patch(`/workflows/${id}`).set(sk()).send({ triggerType: spec.trigger.type, triggerConfig: spec.trigger.config ?? {}, enabled: true }).expect(200);
    return { id, steps };
  }

  const track = (email: string, event: string, data?: Record<string, unknown>) => t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email, event, ...(data ? { data } : {}) }).expect(200);
  const executions = async (workflowId: string, query = '') => (await t.http.get(`/workflows/${workflowId}/executions${query}`).set(sk()).expect(200)).body;
  const execution = async (workflowId: string, id: string) => (await t.http.get(`/workflows/${workflowId}/executions/${id}`).set(sk()).expect(200)).body;
  const contactId = async (email: string) => (await t.http.post('/contacts/lookup').set(sk()).send({ emails: [email] }).expect(200)).body.found[0]?.id as string;
  /** The execution of the workflow for this contact, once it is in one of these statuses. */
  const until = (workflowId: string, email: string, statuses: string[], tries = 800) =>
    eventually(async () => {
      const id = await contactId(email);
      const page = await executions(workflowId, '?limit=100');
      const found = page.data.find((e: { contactId: string; status: string }) => e.contactId === id && statuses.includes(e.status));
      return found ? await execution(workflowId, found.id) : undefined;
    }, `${email}'s execution of ${workflowId} to be ${statuses.join('|')}`, tries);
  /** Moves the clock of the execution: its stored wake-up (a DELAY, a timeout, a retry) is now. */
  const wake = (executionId: string) => db.affected(`UPDATE ${db.table('workflow_executions')} SET due_at = now() WHERE id = $1 AND due_at IS NOT NULL`, [executionId]);
  const mailsTo = (to: string) => smtp.messages.filter((m) => m.to[0] === to);
  const pixelOf = (m: SmtpMessage) => new RegExp(`${BASE}(/t/o/[^"]+)"`).exec(decodeQuotedPrintable(m.body))![1];

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    const broker = await testRabbit();
    rabbit = broker.rabbit;
    hookServer = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hooks.push({ path: req.url ?? '', headers: req.headers, body });
        const status = answers.get(req.url ?? '')?.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true, status }));
      });
    });
    await new Promise<void>((r) => hookServer.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}`;
    t = await startEmailApi({
      ...broker.env,
      DNS_SERVERS: dns.address,
      SMTP_URL: smtp.url,
      EMAIL_SEND_RATE: '500',
      PUBLIC_BASE_URL: BASE,
      PREFETCH_WINDOW_SECONDS: '0',
      WORKFLOW_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    db = t.app.get(Database);
    ({ project } = await newProject(t, 'Workflows'));
    await verifiedDomain(t, dns, project, 'flows.acme.test');
    const created = await t.http.post('/templates').set(sk()).send({ name: 'Welcome', subject: 'Welcome {{name ?? "friend"}}', body: '<p>Hi {{email}} ({{event.plan ?? "none"}})</p><a href="{{unsubscribeUrl}}">unsubscribe</a>', from: 'hello@flows.acme.test' }).expect(201);
    template = created.body.id;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
    await rabbit?.cleanup();
    await new Promise((r) => hookServer?.close(r));
  });

  it('a welcome series: event → mail → delay 2 days → "opened the first mail?" → a mail per branch; re-entry off; upcoming lists the waiting', async () => {
    const tip = (await t.http.post('/templates').set(sk()).send({ name: 'Tip', subject: 'A tip', body: '<p>tip</p>', from: 'hello@flows.acme.test' }).expect(201)).body.id;
    const nudge = (await t.http.post('/templates').set(sk()).send({ name: 'Nudge', subject: 'Did you see?', body: '<p>nudge</p>', from: 'hello@flows.acme.test' }).expect(201)).body.id;
    const wf = await workflow({
      name: 'Welcome series',
      trigger: { type: 'EVENT', config: { eventName: 'signed_up' } },
      steps: [
        { key: 'welcome', type: 'SEND_EMAIL', config: { templateId: template } },
        { key: 'wait', type: 'DELAY', config: { amount: 2, unit: 'days' } },
        { key: 'opened', type: 'CONDITION', config: { field: 'email.<welcome>.opened', operator: 'equals', value: true } },
        { key: 'tip', type: 'SEND_EMAIL', config: { templateId: tip } },
        { key: 'nudge', type: 'SEND_EMAIL', config: { templateId: nudge } },
      ],
      edges: [['trigger', 'welcome'], ['welcome', 'wait'], ['wait', 'opened'], ['opened', 'tip', 'yes'], ['opened', 'nudge', 'no']],
    });
    await track('reader@example.com', 'signed_up', { plan: { value: 'pro', persistent: false } });
    await track('skimmer@example.com', 'signed_up');
    const reader = await until(wf.id, 'reader@example.com', ['WAITING']);
    const skimmer = await until(wf.id, 'skimmer@example.com', ['WAITING']);
    expect(reader).toMatchObject({ status: 'WAITING', currentStepId: wf.steps.wait, trigger: { type: 'EVENT', eventName: 'signed_up', data: { plan: 'pro' } } });
    expect(new Date(reader.resumeAt).getTime()).toBeGreaterThan(Date.now() + 47 * 3600_000);
    expect(reader.steps.map((s: { stepType: string; status: string }) => `${s.stepType}:${s.status}`)).toEqual(['TRIGGER:COMPLETED', 'SEND_EMAIL:COMPLETED', 'DELAY:WAITING']);
    // the mail: marketing with one-click unsubscribe, rendered with the event's data, carrying the execution
    const [welcome] = await eventually(async () => (mailsTo('reader@example.com').length ? mailsTo('reader@example.com') : undefined), 'the welcome mail');
    expect(welcome.subject).toBe('Welcome friend');
    expect(decodeQuotedPrintable(welcome.body)).toContain('Hi reader@example.com (pro)');
    expect(welcome.headers['list-unsubscribe']).toMatch(/^<https:\/\/mail\.example\.test\/email\/unsubscribe\//);
    expect(welcome.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const [row] = await q<{ workflow_execution_id: string; source: string; kind: string }>(`SELECT workflow_execution_id, source, kind FROM ${db.table('emails')} WHERE id = $1`, [reader.steps[1].output.emailId]);
    expect(row).toEqual({ workflow_execution_id: reader.id, source: 'WORKFLOW', kind: 'MARKETING' });
    // both wait in /activity/upcoming
    const upcoming = (await t.http.get('/activity/upcoming').set(sk()).expect(200)).body;
    expect(upcoming.filter((u: { type: string; workflowId: string }) => u.type === 'workflow_execution' && u.workflowId === wf.id).map((u: { id: string }) => u.id).sort()).toEqual([reader.id, skimmer.id].sort());
    // the reader opens the welcome mail (the public pixel, as a person); then two days "pass"
    await t.http.get(pixelOf(welcome)).set('User-Agent', BROWSER).expect(200);
    await eventually(async () => (await q(`SELECT 1 FROM ${db.table('mail_events')} WHERE email_id = $1 AND type = 'open' AND flag IS NULL`, [reader.steps[1].output.emailId])).length > 0, 'the open recorded');
    await wake(reader.id);
    await wake(skimmer.id);
    const readerDone = await until(wf.id, 'reader@example.com', ['COMPLETED']);
    const skimmerDone = await until(wf.id, 'skimmer@example.com', ['COMPLETED']);
    expect(readerDone.steps.map((s: { stepType: string; stepName: string }) => (s.stepType === 'TRIGGER' ? 'trigger' : s.stepName))).toEqual(['trigger', 'welcome', 'wait', 'opened', 'tip']);
    expect(readerDone.steps[3].output).toMatchObject({ result: true, branch: 'yes' });
    expect(skimmerDone.steps[3].output).toMatchObject({ result: false, branch: 'no' });
    expect(skimmerDone.steps.at(-1).stepName).toBe('nudge');
    await eventually(async () => mailsTo('reader@example.com').some((m) => m.subject === 'A tip') && mailsTo('skimmer@example.com').some((m) => m.subject === 'Did you see?'), 'the branch mails');
    // every step ran once
    expect(readerDone.steps.every((s: { status: string; attempts: number }) => s.status === 'COMPLETED' && s.attempts === 1)).toBe(true);
    // re-entry off: the same event again starts nothing
    await track('reader@example.com', 'signed_up');
    await new Promise((r) => setTimeout(r, 500));
    expect((await executions(wf.id)).total).toBe(2);
    // a workflow with active executions cannot be deleted; finished ones do not count
    await t.http.delete(`/workflows/${wf.id}`).set(sk()).expect(204);
  });

  it('WAIT_FOR_EVENT: the event of the same contact resumes it; the timeout takes the timeout branch', async () => {
    const wf = await workflow({
      name: 'Trial',
      trigger: { type: 'EVENT', config: { eventName: 'trial_started' } },
      steps: [
        { key: 'purchase', type: 'WAIT_FOR_EVENT', config: { eventName: 'purchased', timeout: 3600 } },
        { key: 'customer', type: 'UPDATE_CONTACT', config: { data: { customer: true } } },
        { key: 'lapsed', type: 'UPDATE_CONTACT', config: { data: { customer: false } } },
      ],
      edges: [['trigger', 'purchase'], ['purchase', 'customer'], ['purchase', 'lapsed', 'timeout']],
    });
    await track('buyer@example.com', 'trial_started');
    await track('tyre-kicker@example.com', 'trial_started');
    const buyer = await until(wf.id, 'buyer@example.com', ['WAITING']);
    const kicker = await until(wf.id, 'tyre-kicker@example.com', ['WAITING']);
    expect(buyer).toMatchObject({ waitingFor: 'purchased' });
    // another contact's purchase resumes nobody else
    await track('someone-else@example.com', 'purchased');
    await track('buyer@example.com', 'purchased');
    const bought = await until(wf.id, 'buyer@example.com', ['COMPLETED']);
    expect(bought.steps.map((s: { stepType: string }) => s.stepType)).toEqual(['TRIGGER', 'WAIT_FOR_EVENT', 'UPDATE_CONTACT']);
    expect(bought.steps[1].output).toMatchObject({ outcome: 'event', eventName: 'purchased' });
    expect((await t.http.get(`/contacts/${buyer.contactId}`).set(sk()).expect(200)).body.data.customer).toBe(true);
    expect((await execution(wf.id, kicker.id)).status).toBe('WAITING');
    await wake(kicker.id);
    const lapsed = await until(wf.id, 'tyre-kicker@example.com', ['COMPLETED']);
    expect(lapsed.steps[1].output).toEqual({ outcome: 'timeout' });
    expect(lapsed.steps[2].stepName).toBe('lapsed');
    expect((await t.http.get(`/contacts/${kicker.contactId}`).set(sk()).expect(200)).body.data.customer).toBe(false);
  });

  it('re-entry on: a second start only once the first execution has ended; a manual start with context', async () => {
    const wf = await workflow({ name: 'Pings', allowReentry: true, trigger: { type: 'EVENT', config: { eventName: 'ping' } }, steps: [{ key: 'hold', type: 'DELAY', config: { amount: 1, unit: 'hours' } }], edges: [['trigger', 'hold']] });
    await track('pinger@example.com', 'ping');
    const first = await until(wf.id, 'pinger@example.com', ['WAITING']);
    await track('pinger@example.com', 'ping');
    await new Promise((r) => setTimeout(r, 500));
    expect((await executions(wf.id)).total).toBe(1);
    await wake(first.id);
    const ended = await until(wf.id, 'pinger@example.com', ['COMPLETED']);
    // the same event delivered again under another message id (its inbox mark lost): the start key (the event id) starts nothing
    const again = randomUUID();
    await t.app.get(EventBus).publish(EmailEventTracked, { projectId: project.id, contactId: ended.contactId, email: 'pinger@example.com', event: 'ping', eventId: ended.trigger.eventId, properties: null, contactCreated: false }, { id: again });
    await eventually(async () => (await q(`SELECT 1 FROM ${db.table('processed_events')} WHERE consumer = 'email-api.workflows' AND event_id = $1`, [again])).length > 0, 'the duplicate handled');
    expect((await executions(wf.id)).total).toBe(1);
    await track('pinger@example.com', 'ping');
    await eventually(async () => (await executions(wf.id)).total === 2, 'the second execution');
    // manual start: refused while active, with its context otherwise
    const id = await contactId('pinger@example.com');
    expect((await t.http.post(`/workflows/${wf.id}/executions`).set(sk()).send({ contactId: id }).expect(409)).body.error.code).toBe('REENTRY_NOT_ALLOWED');
    const manual = await t.http.post(`/workflows/${wf.id}/executions`).set(sk()).send({ email: 'Other@Example.com', context: { source: 'import' } }).expect(404);
    expect(manual.body.error.code).toBe('CONTACT_NOT_FOUND');
    await track('other@example.com', 'visited');
    const started = await t.http.post(`/workflows/${wf.id}/executions`).set(sk()).send({ email: 'other@example.com', context: { source: 'import' } }).expect(201);
    expect(started.body).toMatchObject({ status: 'RUNNING', context: { source: 'import' }, trigger: { type: 'MANUAL', data: { source: 'import' } } });
    await t.http.post(`/workflows/${wf.id}/executions`).set(sk()).send({ contactId: id, email: 'x@example.com' }).expect(422);
    await t.http.post(`/workflows/${wf.id}/executions`).set(sk()).send({ contactId: 'nope' }).expect(422);
  });

  it('a SEGMENT_ENTRY trigger starts on the membership compute; the segment cannot be deleted while its executions run', async () => {
    const segment = (
      await t.http.post('/segments').set(sk()).send({ name: 'Pro plan', type: 'DYNAMIC', trackMembership: true, condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } }).expect(201)
    ).body;
    const wf = await workflow({
      name: 'Pro onboarding',
      trigger: { type: 'SEGMENT_ENTRY', config: { segmentId: segment.id } },
      steps: [
        { key: 'mark', type: 'UPDATE_CONTACT', config: { data: { onboarding: 'pro' } } },
        { key: 'hold', type: 'DELAY', config: { amount: 3, unit: 'days' } },
      ],
      edges: [['trigger', 'mark'], ['mark', 'hold']],
    });
    await t.http.post('/contacts').set(sk()).send({ email: 'upgrader@example.com', data: { plan: 'pro' } }).expect(201);
    await t.http.post('/contacts').set(sk()).send({ email: 'freeloader@example.com', data: { plan: 'free' } }).expect(201);
    await t.http.post(`/segments/${segment.id}/compute`).set(sk()).expect(200);
    const entered = await until(wf.id, 'upgrader@example.com', ['WAITING']);
    expect(entered.trigger).toMatchObject({ type: 'SEGMENT_ENTRY', data: { segmentId: segment.id, segmentName: 'Pro plan' } });
    expect((await t.http.get(`/contacts/${entered.contactId}`).set(sk()).expect(200)).body.data.onboarding).toBe('pro');
    expect((await executions(wf.id)).total).toBe(1);
    const refused = await t.http.delete(`/segments/${segment.id}`).set(sk()).expect(409);
    expect(refused.body.error).toMatchObject({ code: 'SEGMENT_IN_USE', message: expect.stringContaining('Pro onboarding') });
    await t.http.post(`/workflows/${wf.id}/executions/cancel-all`).set(sk()).expect(200);
    await t.http.patch(`/workflows/${wf.id}`).set(sk()).send({ enabled: false }).expect(200);
  });

  it('WEBHOOK: signed, with a delivery id kept across a retry, the answer stored; a failing receiver fails the execution after its tries; a metadata address is refused at once', async () => {
    answers.set('/hook', [503]);
    const wf = await workflow({
      name: 'Hooks',
      trigger: { type: 'EVENT', config: { eventName: 'hook_me' } },
      steps: [{ key: 'call', type: 'WEBHOOK', config: { url: `${hookUrl}/hook`, method: 'POST', headers: { 'X-Contact': '{{email}}' } } }],
      edges: [['trigger', 'call']],
    });
    await track('hooked@example.com', 'hook_me', { tier: 'gold' });
    const pending = await eventually(async () => {
      const e = await until(wf.id, 'hooked@example.com', ['RUNNING']);
      return e.steps[1]?.status === 'PENDING' ? e : undefined;
    }, 'the first attempt to fail');
    expect(pending.steps[1]).toMatchObject({ attempts: 1, error: 'the receiver answered 503', output: { status: 503 } });
    await wake(pending.id);
    const done = await until(wf.id, 'hooked@example.com', ['COMPLETED']);
    expect(done.steps[1]).toMatchObject({ status: 'COMPLETED', attempts: 2, output: { status: 200, body: '{"received":true,"status":200}' } });
    const calls = hooks.filter((h) => h.path === '/hook');
    expect(calls).toHaveLength(2);
    expect(calls[0].headers['x-webhook-id']).toBe(`${done.id}:2`);
    expect(calls[1].headers['x-webhook-id']).toBe(calls[0].headers['x-webhook-id']);
    expect(calls[1].headers['idempotency-key']).toBe(calls[0].headers['x-webhook-id']);
    expect(calls[1].headers['x-contact']).toBe('hooked@example.com');
    // the receiver verifies: HMAC-SHA256 of "<timestamp>.<body>" keyed with the SHA-256 (hex) of the secret key
    const key = hashApiKey(project.secretKey);
    for (const call of calls) expect(verifyHmacSignature(`${call.headers['x-webhook-timestamp']}.${call.body}`, key, String(call.headers['x-webhook-signature']))).toBe(true);
    expect(verifyHmacSignature(`${calls[1].headers['x-webhook-timestamp']}.${calls[1].body}x`, key, String(calls[1].headers['x-webhook-signature']))).toBe(false);
    expect(JSON.parse(calls[1].body)).toMatchObject({ workflowId: wf.id, executionId: done.id, contact: { email: 'hooked@example.com', data: { tier: 'gold' } }, event: { eventName: 'hook_me' } });

    // a receiver that keeps failing: 5 tries, then FAILED with the error visible
    answers.set('/down', [500, 500, 500, 500, 500]);
    const failing = await workflow({ name: 'Down', trigger: { type: 'EVENT', config: { eventName: 'down' } }, steps: [{ key: 'call', type: 'WEBHOOK', config: { url: `${hookUrl}/down`, method: 'PUT', body: { who: '{{email}}' } } }], edges: [['trigger', 'call']] });
    await track('unlucky@example.com', 'down');
    for (let attempt = 1; attempt < 5; attempt++) {
      const e = await eventually(async () => {
        const x = await until(failing.id, 'unlucky@example.com', ['RUNNING']);
        return x.steps[1]?.attempts === attempt ? x : undefined;
      }, `attempt ${attempt}`);
      await wake(e.id);
    }
    const failed = await until(failing.id, 'unlucky@example.com', ['FAILED']);
    expect(failed.error).toBe('Step "call" (WEBHOOK) failed: the receiver answered 500 (after 5 attempts)');
    expect(failed.steps[1]).toMatchObject({ status: 'FAILED', attempts: 5 });
    expect(hooks.filter((h) => h.path === '/down').map((h) => JSON.parse(h.body))).toEqual(Array(5).fill({ who: 'unlucky@example.com' }));

    const metadata = await workflow({ name: 'Metadata', trigger: { type: 'EVENT', config: { eventName: 'steal' } }, steps: [{ key: 'call', type: 'WEBHOOK', config: { url: 'http://169.254.169.254/latest/meta-data/', method: 'GET' } }], edges: [['trigger', 'call']] });
    await track('attacker@example.com', 'steal');
    const refused = await until(metadata.id, 'attacker@example.com', ['FAILED']);
    expect(refused.steps[1]).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(refused.error).toMatch(/BLOCKED_ADDRESS/);
  });

  it('cancel one and cancel all; the list filters by status and pages with a cursor', async () => {
    const wf = await workflow({ name: 'Long wait', trigger: { type: 'EVENT', config: { eventName: 'long' } }, steps: [{ key: 'hold', type: 'DELAY', config: { amount: 30, unit: 'days' } }], edges: [['trigger', 'hold']] });
    for (const who of ['c1', 'c2', 'c3']) await track(`${who}@example.com`, 'long');
    for (const who of ['c1', 'c2', 'c3']) await until(wf.id, `${who}@example.com`, ['WAITING']);
    const first = await executions(wf.id, '?limit=2');
    expect(first).toMatchObject({ total: 3, hasMore: true });
    const second = await executions(wf.id, `?limit=2&cursor=${first.cursor}`);
    expect(second).toMatchObject({ total: 0, hasMore: false });
    expect(new Set([...first.data, ...second.data].map((e: { id: string }) => e.id)).size).toBe(3);
    const one = first.data[0];
    const cancelled = await t.http.delete(`/workflows/${wf.id}/executions/${one.id}`).set(sk()).expect(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', exitReason: 'cancelled' });
    expect((await execution(wf.id, one.id)).steps.at(-1)).toMatchObject({ stepType: 'DELAY', status: 'SKIPPED' });
    expect((await t.http.delete(`/workflows/${wf.id}/executions/${one.id}`).set(sk()).expect(409)).body.error.code).toBe('EXECUTION_NOT_ACTIVE');
    // a woken cancelled execution stays cancelled
    await wake(one.id);
    expect((await executions(wf.id, '?status=WAITING')).total).toBe(2);
    expect((await t.http.post(`/workflows/${wf.id}/executions/cancel-all`).set(sk()).expect(200)).body).toEqual({ cancelled: 2 });
    expect((await executions(wf.id, '?status=CANCELLED')).total).toBe(3);
    await t.http.get(`/workflows/${wf.id}/executions?status=SLEEPING`).set(sk()).expect(422);
    await t.http.get(`/workflows/${wf.id}/executions/${randomUUID()}`).set(sk()).expect(404);
    await t.http.get(`/workflows/${wf.id}/executions/not-a-uuid`).set(sk()).expect(404);
    await t.http.get(`/workflows/${wf.id}/executions?cursor=garbage`).set(sk()).expect(400);
    // another project sees none of it
    const other = (await newProject(t, 'Other')).project;
    await t.http.get(`/workflows/${wf.id}/executions`).set(bearer(other.secretKey)).expect(404);
  });

  it('workflow mails over the cap: a batch whose mails do not fit goes one by one, exactly the units left are sent, the rest retried', async () => {
    const { project: capped } = await newProject(t, 'Capped');
    await verifiedDomain(t, dns, capped, 'capped.acme.test');
    const key = bearer(capped.secretKey);
    const tpl = (await t.http.post('/templates').set(key).send({ name: 'Capped', subject: 'Capped', body: '<p>Hi {{email}}</p><a href="{{unsubscribeUrl}}">unsubscribe</a>', from: 'hello@capped.acme.test' }).expect(201)).body.id;
    const wf = (await t.http.post('/workflows').set(key).send({ name: 'Capped' }).expect(201)).body.id;
    const trigger = (await t.http.get(`/workflows/${wf}`).set(key).expect(200)).body.steps.find((s: { type: string }) => s.type === 'TRIGGER').id;
    const mail = (await t.http.post(`/workflows/${wf}/steps`).set(key).send({ type: 'SEND_EMAIL', name: 'mail', config: { templateId: tpl } }).expect(201)).body.id;
    await t.http.post(`/workflows/${wf}/transitions`).set(key).send({ fromStepId: trigger, toStepId: mail }).expect(201);
    await t.http.patch(`/workflows/${wf}`).set(key).send({ triggerType: 'MANUAL', enabled: true }).expect(200);
    const billing = t.app.get(BillingUsage);
    await billing.setLimits(capped.id, { workflows: 10, campaigns: null, transactional: null, inbound: null });
    // 40 contacts enter at once (written in one statement): claimed together, advanced in batches of several
    const ids = Array.from({ length: 40 }, () => newId('cnt'));
    await q(`INSERT INTO ${db.table('contacts')} (id, project_id, email, subscribed, data) SELECT id, $2, 'capped' || n || '@example.com', true, '{}'::jsonb FROM unnest($1::text[]) WITH ORDINALITY AS x(id, n)`, [ids, capped.id]);
    await q(
      `INSERT INTO ${db.table('workflow_executions')} (project_id, workflow_id, contact_id, status, current_step_id, trigger, start_key, due_at)
       SELECT $1, $2, id, 'RUNNING', $3, '{"type":"MANUAL","data":{}}'::jsonb, 'capped:' || id, now() FROM unnest($4::text[]) AS x(id)`,
      [capped.id, wf, trigger, ids],
    );
    const runs = () => q<{ status: string; error: string | null }>(`SELECT status, error FROM ${db.table('workflow_step_runs')} WHERE step_id = $1`, [mail]);
    await eventually(async () => (await runs()).length === 40, 'every execution to try its mail');
    const tried = await runs();
    expect(tried.filter((r) => r.status === 'COMPLETED')).toHaveLength(10);
    const refused = tried.filter((r) => r.status === 'PENDING');
    expect(refused).toHaveLength(30);
    expect(refused.every((r) => /monthly workflows limit of 10/.test(r.error ?? ''))).toBe(true);
    const [{ n }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.table('emails')} WHERE project_id = $1`, [capped.id]);
    expect(n).toBe(10);
    expect((await billing.consumption(capped.id)).categories.workflows).toMatchObject({ used: 10, reached: true });
    await t.http.post(`/workflows/${wf}/executions/cancel-all`).set(key).expect(200);
  });

  it('editing a step executions wait at is refused (409 naming the count) unless they exit', async () => {
    const wf = await workflow({ name: 'Edit me', trigger: { type: 'EVENT', config: { eventName: 'edit_me' } }, steps: [{ key: 'hold', type: 'DELAY', config: { amount: 1, unit: 'days' } }], edges: [['trigger', 'hold']] });
    await track('editor@example.com', 'edit_me');
    const waiting = await until(wf.id, 'editor@example.com', ['WAITING']);
    const refused = await t.http.patch(`/workflows/${wf.id}/steps/${wf.steps.hold}`).set(sk()).send({ config: { amount: 2, unit: 'days' } }).expect(409);
    expect(refused.body.error.message).toContain('1');
    await t.http.patch(`/workflows/${wf.id}/steps/${wf.steps.hold}?exitWaiting=true`).set(sk()).send({ config: { amount: 2, unit: 'days' } }).expect(200);
    expect((await execution(wf.id, waiting.id)).status).toBe('EXITED');
  });

  it('automation.email_captured published on the bus starts the workflow triggered by email_captured', async () => {
    const wf = await workflow({ name: 'Captured', trigger: { type: 'EVENT', config: { eventName: 'email_captured' } }, steps: [{ key: 'tag', type: 'UPDATE_CONTACT', config: { data: { nurtured: 'yes' } } }], edges: [['trigger', 'tag']] });
    const data = { accountId: 'acc-1', emailPublicKey: project.publicKey, igUserId: 'ig-7', igUsername: 'grace', automationId: 'auto-1', runId: 'run-1', email: 'captured@example.com', automationName: 'Giveaway', tags: ['ig'] };
    await t.app.get(EventBus).publish(AutomationEmailCaptured, data, { id: randomUUID() });
    const done = await until(wf.id, 'captured@example.com', ['COMPLETED']);
    expect(done.trigger).toMatchObject({ type: 'EVENT', eventName: 'email_captured' });
    expect((await t.http.get(`/contacts/${done.contactId}`).set(sk()).expect(200)).body.data).toMatchObject({ nurtured: 'yes', igUsername: 'grace' });
  });
});
