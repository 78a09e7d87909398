import { Database } from '@platform/database';
import { startFakeDnsServer, startFakeSmtpSink, type FakeDnsServer, type FakeSmtpSink } from '@platform/testing';
import { bearer, newProject, startEmailApi, type EmailTestApp, type TestProject } from '../../test/helpers';
import { verifiedDomain } from '../../test/marketing';

interface StepBody {
  id: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
}

describe('workflow definitions (e2e)', () => {
  let t: EmailTestApp;
  let dns: FakeDnsServer;
  let smtp: FakeSmtpSink;
  let project: TestProject;
  let db: Database;
  let domainId: string;
  let templateId: string;
  let contactId: string;
  const sk = () => bearer(project.secretKey);

  const create = async (name = 'Welcome series', extra: Record<string, unknown> = {}) => (await t.http.post('/workflows').set(sk()).send({ name, ...extra }).expect(201)).body as { id: string; steps: StepBody[] };
  const addStep = async (wf: string, type: string, config: Record<string, unknown> = {}, name?: string) =>
    (await t.http.post(`/workflows/${wf}/steps`).set(sk()).send({ type, config, ...(name ? { name } : {}) }).expect(201)).body as StepBody;
  const connect = async (wf: string, fromStepId: string, toStepId: string, branch?: string) =>
    (await t.http.post(`/workflows/${wf}/transitions`).set(sk()).send({ fromStepId, toStepId, ...(branch ? { branch } : {}) }).expect(201)).body as { id: string };
  const enable = (wf: string) => t.http.patch(`/workflows/${wf}`).set(sk()).send({ enabled: true });
  /** An execution of the workflow waiting at the step (as the engine leaves one at a wait without timeout). */
  const waitingExecution = async (wf: string, stepId: string) =>
    (await db.one<{ id: string }>(
      `INSERT INTO ${db.table('workflow_executions')} (project_id, workflow_id, contact_id, status, current_step_id, start_key, wait_event)
       VALUES ($1, $2, $3, 'WAITING', $4, gen_random_uuid()::text, 'never_tracked') RETURNING id`,
      [project.id, wf, contactId, stepId],
    ))!.id;
  const executionStatus = async (id: string) => (await db.one<{ status: string; exit_reason: string | null }>(`SELECT status, exit_reason FROM ${db.table('workflow_executions')} WHERE id = $1`, [id]))!;

  /** trigger(signed_up) → mail → delay 2 days → condition opened? (yes → tag, no → exit). */
  const welcome = async (name = 'Welcome series') => {
    const wf = await create(name, { triggerConfig: { eventName: 'wf_e2e_never_tracked' } });
    const trigger = wf.steps[0];
    const mail = await addStep(wf.id, 'SEND_EMAIL', { templateId }, 'Welcome mail');
    const delay = await addStep(wf.id, 'DELAY', { amount: 2, unit: 'days' });
    const cond = await addStep(wf.id, 'CONDITION', { field: `email.${mail.id}.opened`, operator: 'equals', value: true }, 'Opened?');
    const tag = await addStep(wf.id, 'UPDATE_CONTACT', { data: { engaged: true } });
    const exit = await addStep(wf.id, 'EXIT', { reason: 'not engaged' });
    await connect(wf.id, trigger.id, mail.id);
    await connect(wf.id, mail.id, delay.id);
    await connect(wf.id, delay.id, cond.id);
    await connect(wf.id, cond.id, tag.id, 'yes');
    await connect(wf.id, cond.id, exit.id, 'no');
    return { id: wf.id, trigger, mail, delay, cond, tag, exit };
  };

  beforeAll(async () => {
    dns = await startFakeDnsServer();
    smtp = await startFakeSmtpSink();
    t = await startEmailApi({ DNS_SERVERS: dns.address, SMTP_URL: smtp.url });
    db = t.app.get(Database);
    ({ project } = await newProject(t, 'Workflows'));
    domainId = (await verifiedDomain(t, dns, project, 'wf.acme.test')).id;
    templateId = (await t.http.post('/templates').set(sk()).send({ name: 'Welcome', subject: 'Hi', body: '<p>Hi {{email}}</p>', from: 'hello@wf.acme.test' }).expect(201)).body.id;
    contactId = (await t.http.post('/contacts').set(sk()).send({ email: 'ada@example.com', data: { plan: 'pro', seats: 3 } }).expect(201)).body.id;
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await smtp?.close();
  });

  it('creates a disabled EVENT workflow with its TRIGGER step; gets it with steps and transitions; lists pages', async () => {
    const wf = await create('Onboarding', { description: 'first week' });
    expect(wf).toMatchObject({ name: 'Onboarding', description: 'first week', triggerType: 'EVENT', triggerConfig: {}, enabled: false, allowReentry: false, transitions: [] });
    expect(wf.steps).toEqual([{ id: expect.any(String), type: 'TRIGGER', name: 'Trigger', config: {} }]);
    const delay = await addStep(wf.id, 'DELAY', { amount: 1, unit: 'hours' });
    expect(delay).toMatchObject({ type: 'DELAY', name: 'Delay', config: { amount: 1, unit: 'hours' } });
    const tr = await connect(wf.id, wf.steps[0].id, delay.id);
    const got = await t.http.get(`/workflows/${wf.id}`).set(sk()).expect(200);
    expect(got.body.steps.map((s: StepBody) => s.type)).toEqual(['TRIGGER', 'DELAY']);
    expect(got.body.transitions).toEqual([{ id: tr.id, fromStepId: wf.steps[0].id, toStepId: delay.id }]);

    const page = await t.http.get('/workflows?pageSize=1').set(sk()).expect(200);
    expect(page.body).toMatchObject({ page: 1, pageSize: 1, total: expect.any(Number), totalPages: expect.any(Number) });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0].steps).toBeUndefined();
    const disabled = await t.http.get('/workflows?enabled=false').set(sk()).expect(200);
    expect(disabled.body.data.every((w: { enabled: boolean }) => !w.enabled)).toBe(true);
    await t.http.get('/workflows?enabled=maybe').set(sk()).expect(422);

    await t.http.get('/workflows/00000000-0000-4000-8000-000000000000').set(sk()).expect(404);
    expect((await t.http.get('/workflows/nope').set(sk()).expect(404)).body.error.code).toBe('WORKFLOW_NOT_FOUND');
    await t.http.post('/workflows').set(sk()).send({ name: '' }).expect(422);
    await t.http.post('/workflows').set(sk()).send({ name: 'x', triggerConfig: { segmentId: 'x' } }).expect(422);
    const renamed = await t.http.patch(`/workflows/${wf.id}`).set(sk()).send({ name: 'Renamed', description: null, allowReentry: true }).expect(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', description: null, allowReentry: true, enabled: false });
  });

  it('checks step configs and the template of SEND_EMAIL', async () => {
    const wf = await create();
    const bad = await t.http.post(`/workflows/${wf.id}/steps`).set(sk()).send({ type: 'DELAY', config: { amount: 400, unit: 'days' } }).expect(422);
    expect(bad.body.error.errors).toEqual([expect.objectContaining({ field: 'config.amount', code: 'too_big' })]);
    const typo = await t.http.post(`/workflows/${wf.id}/steps`).set(sk()).send({ type: 'WAIT_FOR_EVENT', config: { eventName: 'paid', timout: 60 } }).expect(422);
    expect(typo.body.error.errors).toEqual([expect.objectContaining({ field: 'config.timout', code: 'unrecognized_key' })]);
    await t.http.post(`/workflows/${wf.id}/steps`).set(sk()).send({ type: 'TRIGGER', config: {} }).expect(422);
    await t.http.post(`/workflows/${wf.id}/steps`).set(sk()).send({ type: 'CONDITION', config: { field: 'contact.password', operator: 'equals', value: 1 } }).expect(422);
    await t.http.post(`/workflows/${wf.id}/steps`).set(sk()).send({ type: 'WEBHOOK', config: { url: 'ftp://x', method: 'POST' } }).expect(422);
    const missing = await t.http.post(`/workflows/${wf.id}/steps`).set(sk()).send({ type: 'SEND_EMAIL', config: { templateId: '00000000-0000-4000-8000-000000000000' } }).expect(404);
    expect(missing.body.error.code).toBe('TEMPLATE_NOT_FOUND');
    const step = await addStep(wf.id, 'SEND_EMAIL', { templateId: templateId.toUpperCase() });
    expect(step.config).toEqual({ templateId });
    const patched = await t.http.patch(`/workflows/${wf.id}/steps/${step.id}`).set(sk()).send({ name: 'Renamed mail', config: { templateId, to: 'team@example.com' } }).expect(200);
    expect(patched.body).toMatchObject({ name: 'Renamed mail', type: 'SEND_EMAIL', config: { templateId, to: 'team@example.com' } });
    await t.http.patch(`/workflows/${wf.id}/steps/00000000-0000-4000-8000-000000000000`).set(sk()).send({ name: 'x' }).expect(404);
  });

  it('transition rules: yes/no only out of a CONDITION, timeout only out of a WAIT_FOR_EVENT, one per branch, nothing into the TRIGGER', async () => {
    const wf = await create();
    const trigger = wf.steps[0];
    const cond = await addStep(wf.id, 'CONDITION', { field: 'contact.data.plan', operator: 'equals', value: 'pro' }, 'Is pro?');
    const wait = await addStep(wf.id, 'WAIT_FOR_EVENT', { eventName: 'paid', timeout: 3600 });
    const exit = await addStep(wf.id, 'EXIT', {});
    const post = (body: Record<string, unknown>) => t.http.post(`/workflows/${wf.id}/transitions`).set(sk()).send(body);

    const noBranch = await post({ fromStepId: cond.id, toStepId: exit.id }).expect(422);
    expect(noBranch.body.error.errors).toEqual([expect.objectContaining({ field: 'branch', code: 'invalid_branch', message: expect.stringContaining('"Is pro?"') })]);
    const branchOnTrigger = await post({ fromStepId: trigger.id, toStepId: cond.id, branch: 'yes' }).expect(422);
    expect(branchOnTrigger.body.error.errors[0]).toMatchObject({ field: 'branch', code: 'invalid_branch', message: expect.stringContaining('TRIGGER step') });
    await post({ fromStepId: cond.id, toStepId: exit.id, branch: 'timeout' }).expect(422);
    await post({ fromStepId: wait.id, toStepId: exit.id, branch: 'no' }).expect(422);
    await post({ fromStepId: exit.id, toStepId: wait.id }).expect(422);
    const intoTrigger = await post({ fromStepId: cond.id, toStepId: trigger.id, branch: 'yes' }).expect(422);
    expect(intoTrigger.body.error.errors[0]).toMatchObject({ field: 'toStepId', code: 'entry_has_incoming' });
    await post({ fromStepId: cond.id, toStepId: '00000000-0000-4000-8000-000000000000', branch: 'yes' }).expect(422);
    await post({ fromStepId: 'not-a-uuid', toStepId: exit.id }).expect(422);
    await post({ fromStepId: cond.id, toStepId: exit.id, branch: 'maybe' }).expect(422);

    await connect(wf.id, trigger.id, cond.id);
    await connect(wf.id, cond.id, wait.id, 'yes');
    await connect(wf.id, cond.id, exit.id, 'no');
    await connect(wf.id, wait.id, exit.id);
    const timeout = await connect(wf.id, wait.id, exit.id, 'timeout');
    expect((await post({ fromStepId: cond.id, toStepId: exit.id, branch: 'yes' }).expect(409)).body.error.code).toBe('WORKFLOW_TRANSITION_EXISTS');
    expect((await post({ fromStepId: trigger.id, toStepId: exit.id }).expect(409)).body.error.code).toBe('WORKFLOW_TRANSITION_EXISTS');

    await t.http.delete(`/workflows/${wf.id}/transitions/${timeout.id}`).set(sk()).expect(204);
    await t.http.delete(`/workflows/${wf.id}/transitions/${timeout.id}`).set(sk()).expect(404);
    const got = await t.http.get(`/workflows/${wf.id}`).set(sk()).expect(200);
    expect(got.body.transitions.map((tr: { branch?: string }) => tr.branch ?? null).sort()).toEqual(['no', 'yes', null, null].sort());
  });

  it('delete with splice reconnects the neighbours; refuses a branched step; never deletes the TRIGGER', async () => {
    const wf = await create();
    const trigger = wf.steps[0];
    const a = await addStep(wf.id, 'UPDATE_CONTACT', { subscribed: true }, 'A');
    const b = await addStep(wf.id, 'DELAY', { amount: 5, unit: 'minutes' }, 'B');
    const c = await addStep(wf.id, 'EXIT', {}, 'C');
    await connect(wf.id, trigger.id, a.id);
    await connect(wf.id, a.id, b.id);
    await connect(wf.id, b.id, c.id);
    await t.http.delete(`/workflows/${wf.id}/steps/${b.id}?splice=true`).set(sk()).expect(204);
    let got = await t.http.get(`/workflows/${wf.id}`).set(sk()).expect(200);
    expect(got.body.steps.map((s: StepBody) => s.name)).toEqual(['Trigger', 'A', 'C']);
    expect(got.body.transitions.map((tr: { fromStepId: string; toStepId: string }) => [tr.fromStepId, tr.toStepId])).toEqual([
      [trigger.id, a.id],
      [a.id, c.id],
    ]);

    const cond = await addStep(wf.id, 'CONDITION', { field: 'contact.subscribed', operator: 'equals', value: true });
    await t.http.delete(`/workflows/${wf.id}/transitions/${got.body.transitions[1].id}`).set(sk()).expect(204);
    await connect(wf.id, a.id, cond.id);
    await connect(wf.id, cond.id, c.id, 'yes');
    const x = await addStep(wf.id, 'EXIT', {}, 'X');
    await connect(wf.id, cond.id, x.id, 'no');
    const ambiguous = await t.http.delete(`/workflows/${wf.id}/steps/${cond.id}?splice=true`).set(sk()).expect(422);
    expect(ambiguous.body.error.errors).toEqual([expect.objectContaining({ field: `steps[${cond.id}]`, code: 'splice_ambiguous' })]);

    // without splice: the step and every transition touching it go
    await t.http.delete(`/workflows/${wf.id}/steps/${cond.id}`).set(sk()).expect(204);
    got = await t.http.get(`/workflows/${wf.id}`).set(sk()).expect(200);
    expect(got.body.transitions).toEqual([expect.objectContaining({ fromStepId: trigger.id, toStepId: a.id })]);

    expect((await t.http.delete(`/workflows/${wf.id}/steps/${trigger.id}`).set(sk()).expect(409)).body.error.code).toBe('WORKFLOW_TRIGGER_STEP');
    await t.http.delete(`/workflows/${wf.id}/steps/${cond.id}`).set(sk()).expect(404);
    await t.http.delete(`/workflows/${wf.id}/steps/${a.id}?splice=yes`).set(sk()).expect(422);
  });

  it('enabling validates the graph and names the step: dangling, loop without a wait, template on an unverified domain, trigger config', async () => {
    const w = await welcome('Enable checks');

    // a dangling step
    const lost = await addStep(w.id, 'WEBHOOK', { url: 'https://hooks.example.com/x', method: 'POST' }, 'Lost hook');
    let res = await enable(w.id).expect(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: `steps[${lost.id}]`, code: 'unreachable_step', message: expect.stringContaining('"Lost hook"') })]);
    await t.http.delete(`/workflows/${w.id}/steps/${lost.id}`).set(sk()).expect(204);

    // a loop without a wait: tag → mail → delay … is fine (the delay), tag → cond is not
    const loop = await connect(w.id, w.tag.id, w.cond.id);
    res = await enable(w.id).expect(422);
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: expect.stringMatching(new RegExp(`^steps\\[(${w.cond.id}|${w.tag.id})\\]$`)), code: 'cycle_without_wait' })]);
    await t.http.delete(`/workflows/${w.id}/transitions/${loop.id}`).set(sk()).expect(204);

    // the template's domain no longer verified
    await db.affected(`UPDATE ${db.table('domains')} SET status = 'pending' WHERE id = $1`, [domainId]);
    try {
      res = await enable(w.id).expect(422);
      expect(res.body.error.errors).toEqual([expect.objectContaining({ field: `steps[${w.mail.id}].config.templateId`, code: 'domain_not_verified' })]);
    } finally {
      await db.affected(`UPDATE ${db.table('domains')} SET status = 'verified' WHERE id = $1`, [domainId]);
    }

    // the trigger config
    await t.http.patch(`/workflows/${w.id}`).set(sk()).send({ triggerType: 'SEGMENT_ENTRY' }).expect(200);
    res = await enable(w.id).expect(422);
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'triggerConfig.segmentId', code: 'required' })]);
    const missingSegment = await t.http.patch(`/workflows/${w.id}`).set(sk()).send({ triggerConfig: { segmentId: '00000000-0000-4000-8000-000000000000' } }).expect(422);
    expect(missingSegment.body.error.errors[0]).toMatchObject({ field: 'triggerConfig.segmentId', code: 'not_found' });
    await t.http.patch(`/workflows/${w.id}`).set(sk()).send({ triggerType: 'MANUAL' }).expect(200);

    const ok = await enable(w.id).expect(200);
    expect(ok.body).toMatchObject({ enabled: true, triggerType: 'MANUAL', triggerConfig: {} });
    expect(ok.body.steps).toHaveLength(6);
  });

  it('changes of an enabled workflow keep it valid', async () => {
    const w = await welcome('Live edits');
    await enable(w.id).expect(200);
    // a config edit that keeps it valid
    await t.http.patch(`/workflows/${w.id}/steps/${w.delay.id}`).set(sk()).send({ config: { amount: 3, unit: 'days' } }).expect(200);
    // a new step is unreachable: refused, nothing saved
    const added = await t.http.post(`/workflows/${w.id}/steps`).set(sk()).send({ type: 'EXIT', config: {} }).expect(422);
    expect(added.body.error.errors[0]).toMatchObject({ code: 'unreachable_step' });
    // a condition losing its "no" branch
    const got = await t.http.get(`/workflows/${w.id}`).set(sk()).expect(200);
    expect(got.body.steps).toHaveLength(6);
    const no = got.body.transitions.find((tr: { branch?: string }) => tr.branch === 'no');
    const cut = await t.http.delete(`/workflows/${w.id}/transitions/${no.id}`).set(sk()).expect(422);
    expect(cut.body.error.errors.map((e: { field: string; code: string }) => `${e.field}:${e.code}`).sort()).toEqual([`steps[${w.cond.id}]:missing_branch`, `steps[${w.exit.id}]:unreachable_step`].sort());
    // a mail condition on a step that does not come before it
    const wrong = await t.http.patch(`/workflows/${w.id}/steps/${w.cond.id}`).set(sk()).send({ config: { field: `email.${w.tag.id}.opened`, operator: 'equals', value: true } }).expect(422);
    expect(wrong.body.error.errors[0]).toMatchObject({ field: `steps[${w.cond.id}].config.field`, code: 'unknown_step' });
    // an enabled workflow whose trigger loses its event name
    await t.http.patch(`/workflows/${w.id}`).set(sk()).send({ triggerConfig: {} }).expect(422);
    // disabling is always possible, and then edits are free again
    await t.http.patch(`/workflows/${w.id}`).set(sk()).send({ enabled: false }).expect(200);
    await t.http.delete(`/workflows/${w.id}/transitions/${no.id}`).set(sk()).expect(204);
  });

  it('a step that executions wait at: 409 naming the count, or with exitWaiting=true they exit', async () => {
    const w = await welcome('Waiting');
    const execution = await waitingExecution(w.id, w.delay.id);

    const refused = await t.http.patch(`/workflows/${w.id}/steps/${w.delay.id}`).set(sk()).send({ config: { amount: 1, unit: 'days' } }).expect(409);
    expect(refused.body.error).toMatchObject({ code: 'WORKFLOW_STEP_IN_USE', message: expect.stringContaining('1 execution') });
    // a rename alone does not touch the executions
    await t.http.patch(`/workflows/${w.id}/steps/${w.delay.id}`).set(sk()).send({ name: 'Wait a day' }).expect(200);
    expect((await t.http.delete(`/workflows/${w.id}/steps/${w.delay.id}?splice=true`).set(sk()).expect(409)).body.error.code).toBe('WORKFLOW_STEP_IN_USE');
    expect((await executionStatus(execution)).status).toBe('WAITING');

    await t.http.patch(`/workflows/${w.id}/steps/${w.delay.id}?exitWaiting=true`).set(sk()).send({ config: { amount: 1, unit: 'days' } }).expect(200);
    expect(await executionStatus(execution)).toEqual({ status: 'EXITED', exit_reason: 'step_changed' });

    const second = await waitingExecution(w.id, w.delay.id);
    await t.http.delete(`/workflows/${w.id}/steps/${w.delay.id}?splice=true&exitWaiting=true`).set(sk()).expect(204);
    expect(await executionStatus(second)).toEqual({ status: 'EXITED', exit_reason: 'step_deleted' });
    const got = await t.http.get(`/workflows/${w.id}`).set(sk()).expect(200);
    expect(got.body.transitions).toContainEqual(expect.objectContaining({ fromStepId: w.mail.id, toStepId: w.cond.id }));
  });

  it('DELETE /workflows/:id: 409 while executions are active, 204 once they ended', async () => {
    const w = await welcome('To delete');
    const execution = await waitingExecution(w.id, w.delay.id);
    const refused = await t.http.delete(`/workflows/${w.id}`).set(sk()).expect(409);
    expect(refused.body.error).toMatchObject({ code: 'WORKFLOW_HAS_ACTIVE_EXECUTIONS', message: expect.stringContaining('1 running or waiting') });
    await db.affected(`UPDATE ${db.table('workflow_executions')} SET status = 'CANCELLED', ended_at = now() WHERE id = $1`, [execution]);
    await t.http.delete(`/workflows/${w.id}`).set(sk()).expect(204);
    await t.http.get(`/workflows/${w.id}`).set(sk()).expect(404);
    await t.http.delete(`/workflows/${w.id}`).set(sk()).expect(404);
  });

  it('a template sent by a workflow step: listed in its usage, 409 on delete (and on its domain\'s delete)', async () => {
    const own = (await t.http.post('/templates').set(sk()).send({ name: 'Reminder', subject: 'Hey', body: '<p>Hey</p>', from: 'hello@wf.acme.test' }).expect(201)).body.id as string;
    const wf = await create('Reminders');
    const step = await addStep(wf.id, 'SEND_EMAIL', { templateId: own }, 'Remind');
    const usage = await t.http.get(`/templates/${own}/usage`).set(sk()).expect(200);
    expect(usage.body).toEqual({ campaigns: [], workflows: [{ id: wf.id, name: 'Reminders', enabled: false, stepId: step.id, stepName: 'Remind' }] });
    const refused = await t.http.delete(`/templates/${own}`).set(sk()).expect(409);
    expect(refused.body.error).toMatchObject({ code: 'TEMPLATE_IN_USE', message: expect.stringContaining('"Remind" of workflow "Reminders"') });
    const domain = await t.http.delete(`/domains/${domainId}`).set(sk()).expect(409);
    expect(domain.body.error).toMatchObject({ code: 'DOMAIN_IN_USE', message: expect.stringContaining('workflow step(s)') });

    await t.http.delete(`/workflows/${wf.id}/steps/${step.id}`).set(sk()).expect(204);
    expect((await t.http.get(`/templates/${own}/usage`).set(sk()).expect(200)).body.workflows).toEqual([]);
    await t.http.delete(`/templates/${own}`).set(sk()).expect(204);
  });

  it('the usage pages of an event and a custom field list the workflows naming them, and where', async () => {
    const wf = await create('Plan upgrade', { triggerConfig: { eventName: 'wf_usage_signed_up' } });
    await addStep(wf.id, 'CONDITION', { field: 'contact.data.wf_usage_plan.tier', operator: 'equals', value: 'pro' }, 'Is pro');
    await addStep(wf.id, 'UPDATE_CONTACT', { data: { wf_usage_plan: 'gold' } }, 'Upgrade');
    await addStep(wf.id, 'WAIT_FOR_EVENT', { eventName: 'wf_usage_paid' }, 'Wait for payment');
    await addStep(wf.id, 'CONDITION', { field: 'contact.data.wf_usage_planned', operator: 'exists' }, 'Unrelated');
    const event = await t.http.get('/events/wf_usage_signed_up/usage').set(sk()).expect(200);
    expect(event.body).toMatchObject({ count: 0, inUse: true, references: { workflows: [{ id: wf.id, name: 'Plan upgrade', where: ['trigger'] }] } });
    expect((await t.http.get('/events/wf_usage_paid/usage').set(sk()).expect(200)).body.references.workflows).toEqual([{ id: wf.id, name: 'Plan upgrade', where: ['step "Wait for payment"'] }]);
    const field = await t.http.get('/contacts/fields/wf_usage_plan/usage').set(sk()).expect(200);
    expect(field.body).toMatchObject({ contacts: 0, inUse: true, references: { workflows: [{ id: wf.id, name: 'Plan upgrade', where: ['step "Is pro"', 'step "Upgrade"'] }] } });
  });

  it('concurrent changes: one transition per branch, and a template deleted while a step picks it up answers 404 or 409, never a 500', async () => {
    const wf = await create('Races');
    const cond = await addStep(wf.id, 'CONDITION', { field: 'contact.subscribed', operator: 'equals', value: true });
    const targets = await Promise.all([1, 2, 3, 4].map((i) => addStep(wf.id, 'EXIT', {}, `E${i}`)));
    const answers = await Promise.all(targets.map((x) => t.http.post(`/workflows/${wf.id}/transitions`).set(sk()).send({ fromStepId: cond.id, toStepId: x.id, branch: 'yes' })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);

    for (let i = 0; i < 4; i++) {
      const id = (await t.http.post('/templates').set(sk()).send({ name: `Race ${i}`, subject: 'S', body: '<p>B</p>', from: 'hello@wf.acme.test' }).expect(201)).body.id as string;
      const [added, deleted] = await Promise.all([
        t.http.post(`/workflows/${wf.id}/steps`).set(sk()).send({ type: 'SEND_EMAIL', config: { templateId: id } }),
        t.http.delete(`/templates/${id}`).set(sk()),
      ]);
      expect([[201, 409], [404, 204]]).toContainEqual([added.status, deleted.status]);
    }
  });

  it('deleting the project takes its workflows, steps and templates along (the step\'s template reference does not block it)', async () => {
    const other = await newProject(t, 'Short-lived');
    const key = bearer(other.project.secretKey);
    await verifiedDomain(t, dns, other.project, 'gone.acme.test');
    const template = (await t.http.post('/templates').set(key).send({ name: 'Bye', subject: 'Bye', body: '<p>Bye</p>', from: 'bye@gone.acme.test' }).expect(201)).body.id as string;
    const wf = (await t.http.post('/workflows').set(key).send({ name: 'Gone' }).expect(201)).body as { id: string };
    await t.http.post(`/workflows/${wf.id}/steps`).set(key).send({ type: 'SEND_EMAIL', config: { templateId: template } }).expect(201);
    await t.http.delete(`/users/@me/projects/${other.project.id}`).set('Cookie', other.account.cookie).expect(204);
    expect(await db.one(`SELECT 1 FROM ${db.table('workflows')} WHERE id = $1`, [wf.id])).toBeNull();
  });

  it('GET /workflows/fields: contact fields, tracked event keys and the mail facts of a workflow', async () => {
    await t.http.post('/v1/track').set(bearer(project.publicKey)).send({ email: 'ada@example.com', event: 'viewed_pricing', data: { tier: { value: 'gold', persistent: false }, amount: { value: 42, persistent: false } } }).expect((r) => expect(r.status).toBeLessThan(300));
    const w = await welcome('Fields');
    const res = await t.http.get(`/workflows/fields?workflowId=${w.id}`).set(sk()).expect(200);
    const byField = new Map(res.body.fields.map((f: { field: string }) => [f.field, f]));
    expect(byField.get('contact.email')).toMatchObject({ source: 'contact', type: 'string' });
    expect(byField.get('contact.subscribed')).toMatchObject({ source: 'contact', type: 'boolean', operators: ['equals', 'not_equals'] });
    expect(byField.get('contact.data.plan')).toMatchObject({ source: 'contact', type: 'string', count: expect.any(Number) });
    expect(byField.get('contact.data.seats')).toMatchObject({ type: 'number', operators: expect.arrayContaining(['gt', 'lte']) });
    expect(byField.get('event.tier')).toMatchObject({ source: 'event', type: 'string', events: ['viewed_pricing'] });
    expect(byField.get('event.amount')).toMatchObject({ source: 'event', type: 'number' });
    expect(byField.get(`email.${w.mail.id}.opened`)).toMatchObject({ source: 'email', type: 'boolean', stepName: 'Welcome mail' });
    expect(byField.has('contact.createdAt')).toBe(false);
    expect(res.body.totalContacts).toBeGreaterThanOrEqual(1);
    await t.http.get('/workflows/fields?workflowId=00000000-0000-4000-8000-000000000000').set(sk()).expect(404);
    await t.http.get('/workflows/fields?workflowId=x').set(sk()).expect(422);
  });

  it('documents every definition route, and the config of each step type, in the OpenAPI document', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: { schemas: Record<string, { properties?: Record<string, { anyOf?: Array<{ $ref: string }> }> }> } };
    const routes = [
      ['get', '/workflows'],
      ['post', '/workflows'],
      ['get', '/workflows/fields'],
      ['get', '/workflows/{id}'],
      ['patch', '/workflows/{id}'],
      ['delete', '/workflows/{id}'],
      ['post', '/workflows/{id}/steps'],
      ['patch', '/workflows/{id}/steps/{stepId}'],
      ['delete', '/workflows/{id}/steps/{stepId}'],
      ['post', '/workflows/{id}/transitions'],
      ['delete', '/workflows/{id}/transitions/{transitionId}'],
    ];
    for (const [method, path] of routes) expect({ route: `${method} ${path}`, documented: Boolean(doc.paths[path]?.[method]) }).toEqual({ route: `${method} ${path}`, documented: true });
    expect(Object.keys(doc.paths['/workflows/{id}/steps/{stepId}'].patch.responses)).toEqual(expect.arrayContaining(['200', '404', '409', '422']));
    const config = doc.components.schemas.StepDto.properties!.config;
    expect(config.anyOf!.map((r) => r.$ref.split('/').pop())).toEqual(['TriggerStepConfigDto', 'SendEmailConfigDto', 'DelayConfigDto', 'WaitForEventConfigDto', 'ConditionConfigDto', 'WebhookConfigDto', 'UpdateContactConfigDto', 'ExitConfigDto']);
    expect(doc.components.schemas.DelayConfigDto.properties).toHaveProperty('unit');
  });
});
